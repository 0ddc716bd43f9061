import fc from 'fast-check';
import { ToolError } from '@toolplane/toolmodel';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalBench, rejection, type LocalBench } from '../testing/helpers.js';
import { backoffDelay, retry } from './retry.js';

let bench: LocalBench;
let define: LocalBench['define'];
let runnerWith: LocalBench['runnerWith'];

beforeEach(() => {
  bench = createLocalBench();
  ({ define, runnerWith } = bench);
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
          const delay = backoffDelay(attempt, { minDelay, maxDelay, random: () => r });
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(cap + 1e-9);
          expect(delay).toBeCloseTo(r * cap, 6);
        },
      ),
    );
  });
});
