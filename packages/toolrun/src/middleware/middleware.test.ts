import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { ToolError, type Tool } from '@toolplane/toolmodel';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalRegistry, type LocalHandler, type LocalRegistry } from '../local-registry.js';
import { createRunner } from '../runner.js';
import type { Middleware } from '../types.js';
import { audit, REDACTED, type AuditRecord } from './audit.js';
import { circuitBreaker } from './circuit-breaker.js';
import { concurrency } from './concurrency.js';
import { rateLimit } from './rate-limit.js';
import { backoffDelay, retry } from './retry.js';
import { timeout } from './timeout.js';

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw new Error(`expected a ToolError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the promise to reject');
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let index: ToolIndex;
let registry: LocalRegistry;

function define(name: string, handler: LocalHandler, extra: Partial<Tool> = {}): string {
  index.registerTool(
    { name, namespace: 'mw', inputSchema: { type: 'object' }, ...extra },
    { kind: 'local', local: { name } },
  );
  registry.register(name, handler);
  return `mw:${name}`;
}

function runnerWith(...middleware: Middleware[]) {
  return createRunner({ index, local: registry, middleware });
}

beforeEach(() => {
  index = createIndex();
  registry = createLocalRegistry();
});

describe('timeout', () => {
  it('rejects with timeout and aborts the handler’s signal when the call takes too long', async () => {
    const aborted = deferred();
    const id = define('hang', (_args, { signal }) => {
      signal.addEventListener('abort', aborted.resolve);
      return new Promise(() => undefined);
    });
    const error = await rejection(runnerWith(timeout(20)).run(id));
    expect(error.code).toBe('timeout');
    expect(error.toolId).toBe(id);
    await aborted.promise;
  });

  it('passes the result through when the call is fast enough', async () => {
    const id = define('fast', () => 'ok');
    expect((await runnerWith(timeout(10_000)).run(id)).structured).toBe('ok');
  });

  it('still lets the caller cancel', async () => {
    const started = deferred();
    const id = define('hang', () => {
      started.resolve();
      return new Promise(() => undefined);
    });
    const controller = new AbortController();
    const pending = runnerWith(timeout(60_000)).run(id, {}, { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await rejection(pending)).code).toBe('cancelled');
  });

  it('rejects a non-positive duration with invalid_argument', () => {
    expect(() => timeout(0)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('retry', () => {
  const instant = { minDelay: 1, maxDelay: 1, random: () => 0 };

  it('retries a read-only tool until it succeeds', async () => {
    let attempts = 0;
    const id = define(
      'flaky',
      () => {
        if (++attempts < 3) throw new Error('transient');
        return attempts;
      },
      { annotations: { readOnlyHint: true } },
    );
    expect((await runnerWith(retry({ retries: 3, ...instant })).run(id)).structured).toBe(3);
  });

  it('gives up after the given number of retries with the last error', async () => {
    let attempts = 0;
    const id = define(
      'broken',
      () => {
        attempts++;
        throw new Error('always');
      },
      { annotations: { idempotentHint: true } },
    );
    const error = await rejection(runnerWith(retry({ retries: 2, ...instant })).run(id));
    expect(error.code).toBe('execution');
    expect(attempts).toBe(3);
  });

  it('does not retry a tool that is neither read-only nor idempotent', async () => {
    let attempts = 0;
    const id = define('write', () => {
      attempts++;
      throw new Error('failed');
    });
    await rejection(runnerWith(retry({ retries: 3, ...instant })).run(id));
    expect(attempts).toBe(1);
  });

  it('retries a call the caller marks idempotent', async () => {
    let attempts = 0;
    const id = define('write', () => {
      if (++attempts < 2) throw new Error('once');
      return 'ok';
    });
    const runner = runnerWith(retry({ retries: 3, ...instant }));
    expect((await runner.run(id, {}, { idempotent: true })).structured).toBe('ok');
  });

  it('never retries validation or cancelled errors', async () => {
    let attempts = 0;
    const id = define(
      'strict',
      () => {
        attempts++;
        throw new ToolError('cancelled', 'stop');
      },
      {
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', required: ['x'] },
      },
    );
    const runner = runnerWith(retry({ retries: 3, ...instant }));
    expect((await rejection(runner.run(id, {}))).code).toBe('validation');
    expect(attempts).toBe(0);
    expect((await rejection(runner.run(id, { x: 1 }))).code).toBe('cancelled');
    expect(attempts).toBe(1);
  });

  it('draws one jitter per retry', async () => {
    let draws = 0;
    let attempts = 0;
    const id = define(
      'flaky',
      () => {
        if (++attempts < 5) throw new Error('transient');
        return 'ok';
      },
      { annotations: { readOnlyHint: true } },
    );
    const random = () => {
      draws++;
      return 0;
    };
    await runnerWith(retry({ retries: 4, minDelay: 1, maxDelay: 4, random })).run(id);
    expect(draws).toBe(4);
  });

  it('stops waiting with cancelled as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const id = define(
      'flaky',
      () => {
        queueMicrotask(() => {
          controller.abort();
        });
        throw new Error('transient');
      },
      { annotations: { readOnlyHint: true } },
    );
    const runner = runnerWith(retry({ retries: 5, minDelay: 60_000, maxDelay: 60_000 }));
    const error = await rejection(runner.run(id, {}, { signal: controller.signal }));
    expect(error.code).toBe('cancelled');
  });

  it('does not retry a stream that already produced a chunk', async () => {
    let attempts = 0;
    const id = define(
      'gen',
      async function* () {
        attempts++;
        yield 'partial';
        await Promise.resolve();
        throw new Error('broke mid-stream');
      },
      { annotations: { readOnlyHint: true } },
    );
    const events = [];
    for await (const event of runnerWith(retry({ retries: 3, ...instant })).runStream(id)) {
      events.push(event.type);
    }
    expect(events).toEqual(['chunk', 'error']);
    expect(attempts).toBe(1);
  });
});

describe('backoffDelay', () => {
  it('stays below min(maxDelay, minDelay * 2 ** attempt) and reaches its cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, minDelay, maxDelay, r) => {
          const cap = Math.min(maxDelay, minDelay * 2 ** attempt);
          const delay = backoffDelay(attempt, minDelay, maxDelay, () => r);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(cap + 1e-9);
          expect(delay).toBeCloseTo(r * cap, 6);
        },
      ),
    );
  });
});

describe('rateLimit', () => {
  it('rejects with rate_limited once the limit is used up, per tool', async () => {
    const a = define('a', () => 'a');
    const b = define('b', () => 'b');
    const runner = runnerWith(rateLimit({ limit: 2, interval: 60_000 }));
    await runner.run(a);
    await runner.run(a);
    const error = await rejection(runner.run(a));
    expect(error.code).toBe('rate_limited');
    expect(error.toolId).toBe(a);
    expect((await runner.run(b)).structured).toBe('b');
  });

  it('counts per backend when asked to', async () => {
    index.registerTool(
      { name: 'one', namespace: 'mw', inputSchema: { type: 'object' } },
      { kind: 'local', local: { name: 'shared' } },
    );
    index.registerTool(
      { name: 'two', namespace: 'mw', inputSchema: { type: 'object' } },
      { kind: 'local', local: { name: 'shared' } },
    );
    registry.register('shared', () => 'ok');
    const runner = runnerWith(rateLimit({ limit: 1, interval: 60_000, key: 'backend' }));
    await runner.run('mw:one');
    expect((await rejection(runner.run('mw:two'))).code).toBe('rate_limited');
  });

  it('refills tokens as time passes', async () => {
    let now = 0;
    const id = define('a', () => 'a');
    const runner = runnerWith(rateLimit({ limit: 1, interval: 1000, now: () => now }));
    await runner.run(id);
    expect((await rejection(runner.run(id))).code).toBe('rate_limited');
    now = 1000;
    expect((await runner.run(id)).structured).toBe('a');
  });
});

describe('concurrency', () => {
  it('runs at most max calls at once and the rest in arrival order', async () => {
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 5 }, deferred);
    const id = define('work', async (args) => {
      const { n } = args as { n: number };
      running++;
      peak = Math.max(peak, running);
      order.push(n);
      await gates[n]?.promise;
      running--;
      return n;
    });
    const runner = runnerWith(concurrency({ max: 2 }));
    const calls = gates.map((_, n) => runner.run(id, { n }));
    for (const gate of gates) gate.resolve();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.structured)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('drops a waiting call whose signal aborts, with cancelled', async () => {
    const gate = deferred();
    const started = deferred();
    let calls = 0;
    const id = define('work', async () => {
      calls++;
      started.resolve();
      await gate.promise;
      return 'done';
    });
    const runner = runnerWith(concurrency({ max: 1 }));
    const first = runner.run(id);
    await started.promise;
    const controller = new AbortController();
    const second = runner.run(id, {}, { signal: controller.signal });
    controller.abort();
    expect((await rejection(second)).code).toBe('cancelled');
    gate.resolve();
    expect((await first).structured).toBe('done');
    expect(calls).toBe(1);
    expect((await runner.run(id)).structured).toBe('done');
  });
});

describe('circuitBreaker', () => {
  it('opens after consecutive failures, then lets a trial call through after resetAfter', async () => {
    let now = 0;
    let healthy = false;
    let calls = 0;
    const id = define('svc', () => {
      calls++;
      if (!healthy) throw new Error('down');
      return 'up';
    });
    const runner = runnerWith(circuitBreaker({ failures: 2, resetAfter: 1000, now: () => now }));
    expect((await rejection(runner.run(id))).code).toBe('execution');
    expect((await rejection(runner.run(id))).code).toBe('execution');
    const open = await rejection(runner.run(id));
    expect(open.code).toBe('circuit_open');
    expect(calls).toBe(2);

    now = 1000;
    expect((await rejection(runner.run(id))).code).toBe('execution');
    expect(calls).toBe(3);
    expect((await rejection(runner.run(id))).code).toBe('circuit_open');

    now = 2000;
    healthy = true;
    expect((await runner.run(id)).structured).toBe('up');
    expect((await runner.run(id)).structured).toBe('up');
  });

  it('does not count validation failures against the backend', async () => {
    const id = define('svc', () => 'ok', { inputSchema: { type: 'object', required: ['x'] } });
    const runner = runnerWith(circuitBreaker({ failures: 1, resetAfter: 60_000 }));
    expect((await rejection(runner.run(id, {}))).code).toBe('validation');
    expect((await runner.run(id, { x: 1 })).structured).toBe('ok');
  });
});

describe('audit', () => {
  it('records tool, backend, duration, outcome and code, with args redacted by default', async () => {
    const records: AuditRecord[] = [];
    const ok = define('ok', () => 'fine');
    const bad = define('bad', () => {
      throw new Error('nope');
    });
    const runner = runnerWith(
      audit((record) => {
        records.push(record);
      }),
    );
    await runner.run(ok, { password: 'hunter2' });
    await rejection(runner.run(bad, { token: 'secret' }));
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      toolId: ok,
      backend: { kind: 'local', local: { name: 'ok' } },
      outcome: 'success',
      args: { password: REDACTED },
    });
    expect(records[0]?.duration).toBeGreaterThanOrEqual(0);
    expect(records[1]).toMatchObject({ toolId: bad, outcome: 'error', errorCode: 'execution' });
    expect(JSON.stringify(records)).not.toContain('hunter2');
    expect(JSON.stringify(records)).not.toContain('secret');
  });

  it('includes args when asked to', async () => {
    const records: AuditRecord[] = [];
    const id = define('ok', () => 'fine');
    await runnerWith(
      audit(
        (r) => {
          records.push(r);
        },
        { args: 'include' },
      ),
    ).run(id, { q: 1 });
    expect(records[0]?.args).toEqual({ q: 1 });
  });

  it('never lets a failing sink fail the call', async () => {
    const id = define('ok', () => 'fine');
    const throwing = runnerWith(
      audit(() => {
        throw new Error('sink down');
      }),
    );
    expect((await throwing.run(id)).structured).toBe('fine');
    const rejecting = runnerWith(audit(() => Promise.reject(new Error('sink down'))));
    expect((await rejecting.run(id)).structured).toBe('fine');
  });

  it('records codes raised by inner middleware', async () => {
    const records: AuditRecord[] = [];
    const id = define('ok', () => 'fine');
    const runner = runnerWith(
      audit((r) => {
        records.push(r);
      }),
      rateLimit({ limit: 1, interval: 60_000 }),
    );
    await runner.run(id);
    await rejection(runner.run(id));
    expect(records.map((r) => r.errorCode)).toEqual([undefined, 'rate_limited']);
  });
});
