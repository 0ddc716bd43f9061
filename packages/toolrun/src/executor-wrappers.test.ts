import { describe, expect, it } from 'vitest';
import { REDACTED } from './middleware/audit.js';
import { createLocalBench, deferred } from './testing/helpers.js';
import {
  DEFAULT_REDACTED_KEYS,
  withAudit,
  withRateLimit,
  withTimeout,
  type ExecutorAuditRecord,
} from './executor-wrappers.js';
import { createToolExecutor, InMemoryToolExecutor, type ToolExecutor } from './tool-executor.js';

const invalid = expect.objectContaining({ code: 'invalid_argument' });

/** A tool that never settles and reports when its signal aborts. */
function hanging(): { executor: InMemoryToolExecutor; aborted: Promise<void> } {
  const aborted = deferred();
  const executor = new InMemoryToolExecutor({
    hang: (_payload, _context, { signal }) => {
      signal?.addEventListener('abort', aborted.resolve);
      return new Promise(() => undefined);
    },
    deaf: () => new Promise(() => undefined),
    fast: (payload) => payload,
  });
  return { executor, aborted: aborted.promise };
}

describe('withTimeout', () => {
  it('resolves with timeout and aborts the tool’s signal when an in-memory tool takes too long', async () => {
    const { executor, aborted } = hanging();
    const result = await withTimeout(executor, 20).invoke({ toolName: 'hang' });
    expect(result).toMatchObject({ toolName: 'hang', success: false, errorCode: 'timeout' });
    expect(result.metadata.duration).toBeGreaterThanOrEqual(0);
    await aborted;
  });

  it('resolves with timeout when a runner’s tool takes too long, aborting the handler', async () => {
    const bench = createLocalBench();
    const aborted = deferred();
    const id = bench.define('hang', (_args, { signal }) => {
      signal.addEventListener('abort', aborted.resolve);
      return new Promise(() => undefined);
    });
    const executor = withTimeout(createToolExecutor(bench.runnerWith()), 20);
    expect(await executor.invoke({ toolName: id })).toMatchObject({ errorCode: 'timeout' });
    await aborted.promise;
  });

  it('passes a fast result through', async () => {
    const { executor } = hanging();
    expect(
      await withTimeout(executor, 10_000).invoke({ toolName: 'fast', payload: 7 }),
    ).toMatchObject({
      success: true,
      output: 7,
    });
  });

  it('resolves cancelled at once when the caller aborts, even if the tool ignores its signal', async () => {
    const { executor } = hanging();
    const controller = new AbortController();
    const pending = withTimeout(executor, 60_000).invoke({
      toolName: 'deaf',
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toMatchObject({ success: false, errorCode: 'cancelled' });
  });

  it('resolves at once around an executor that ignores its signal, on timeout and on cancel', async () => {
    const deaf: ToolExecutor = { invoke: () => new Promise(() => undefined) };
    expect(await withTimeout(deaf, 20).invoke({ toolName: 'x' })).toMatchObject({
      success: false,
      errorCode: 'timeout',
    });
    const controller = new AbortController();
    const pending = withTimeout(deaf, 60_000).invoke({ toolName: 'x', signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ success: false, errorCode: 'cancelled' });
  });

  it('rejects a non-positive duration or a non-executor with invalid_argument', () => {
    const { executor } = hanging();
    expect(() => withTimeout(executor, 0)).toThrow(invalid);
    expect(() => withTimeout(executor, Number.NaN)).toThrow(invalid);
    expect(() => withTimeout({} as ToolExecutor, 10)).toThrow(invalid);
  });
});

describe('withRateLimit', () => {
  it('resolves with rate_limited past the limit without calling the tool, until tokens refill', async () => {
    let now = 0;
    let calls = 0;
    const executor = withRateLimit(new InMemoryToolExecutor({ work: () => ++calls }), {
      limit: 2,
      interval: 1000,
      now: () => now,
    });
    expect(await executor.invoke({ toolName: 'work' })).toMatchObject({ success: true, output: 1 });
    expect(await executor.invoke({ toolName: 'work' })).toMatchObject({ success: true, output: 2 });
    const limited = await executor.invoke({ toolName: 'work' });
    expect(limited).toMatchObject({ success: false, errorCode: 'rate_limited' });
    expect(limited.metadata.duration).toBeGreaterThanOrEqual(0);
    expect(calls).toBe(2);
    now = 500;
    expect(await executor.invoke({ toolName: 'work' })).toMatchObject({ success: true, output: 3 });
  });

  it('counts by a key of your own, e.g. per user', async () => {
    const executor = withRateLimit(new InMemoryToolExecutor({ work: () => 'ok' }), {
      limit: 1,
      interval: 60_000,
      key: (invocation) => invocation.context?.userId ?? 'anonymous',
    });
    const as = (userId: string) => executor.invoke({ toolName: 'work', context: { userId } });
    expect((await as('ada')).success).toBe(true);
    expect((await as('bob')).success).toBe(true);
    expect(await as('ada')).toMatchObject({ errorCode: 'rate_limited' });
  });

  it('rejects bad options with invalid_argument', () => {
    const executor = new InMemoryToolExecutor({});
    expect(() => withRateLimit(executor, { limit: 0, interval: 1000 })).toThrow(invalid);
    expect(() => withRateLimit(executor, { limit: 1.5, interval: 1000 })).toThrow(invalid);
    expect(() => withRateLimit(executor, { limit: 1, interval: -1 })).toThrow(invalid);
    expect(() =>
      withRateLimit(executor, { limit: 1, interval: 1, key: 'backend' as 'tool' }),
    ).toThrow(invalid);
    expect(() =>
      withRateLimit(executor, undefined as unknown as { limit: number; interval: number }),
    ).toThrow(invalid);
  });
});

describe('withAudit', () => {
  it('writes an invoked record before the call and a completed one after, secrets redacted', async () => {
    const records: ExecutorAuditRecord[] = [];
    const seenInside: string[] = [];
    const executor = withAudit(
      new InMemoryToolExecutor({
        login: (payload) => {
          seenInside.push(...records.map((r) => r.type));
          return (payload as { user: string }).user;
        },
      }),
      (record) => {
        records.push(record);
      },
    );
    const payload = {
      user: 'ada',
      password: 'hunter2',
      nested: { API_KEY: 'k-123', list: [{ token: 't-456' }] },
    };
    const result = await executor.invoke({
      toolName: 'login',
      payload,
      context: { traceId: 't1' },
    });
    expect(result).toMatchObject({ success: true, output: 'ada' });
    expect(seenInside).toEqual(['invoked']);
    expect(records.map((r) => r.type)).toEqual(['invoked', 'completed']);
    expect(records[0]).toMatchObject({
      toolName: 'login',
      context: { traceId: 't1' },
      payload: {
        user: 'ada',
        password: REDACTED,
        nested: { API_KEY: REDACTED, list: [{ token: REDACTED }] },
      },
    });
    expect(records[1]).toMatchObject({ type: 'completed', success: true });
    expect(JSON.stringify(records)).not.toMatch(/hunter2|k-123|t-456/);
    // The tool itself got the payload as it was.
    expect(payload.password).toBe('hunter2');
  });

  it('redacts the keys it is told to', async () => {
    const records: ExecutorAuditRecord[] = [];
    const executor = withAudit(
      new InMemoryToolExecutor({ echo: (p) => p }),
      (record) => {
        records.push(record);
      },
      { redact: [...DEFAULT_REDACTED_KEYS, 'ssn'] },
    );
    await executor.invoke({ toolName: 'echo', payload: { ssn: '123', password: 'x', name: 'n' } });
    expect(records[0]?.payload).toEqual({ ssn: REDACTED, password: REDACTED, name: 'n' });
    const byPredicate = withAudit(
      new InMemoryToolExecutor({ echo: (p) => p }),
      (record) => {
        records.push(record);
      },
      { redact: (key) => key.startsWith('x-') },
    );
    await byPredicate.invoke({ toolName: 'echo', payload: { 'x-secret': 1, password: 'shown' } });
    expect(records[2]?.payload).toEqual({ 'x-secret': REDACTED, password: 'shown' });
  });

  it('records a failure’s code and never lets a failing sink change the outcome', async () => {
    const records: ExecutorAuditRecord[] = [];
    const tools = new InMemoryToolExecutor({
      ok: () => 'fine',
      bad: () => Promise.reject(new Error('no')),
    });
    await withAudit(tools, (r) => {
      records.push(r);
    }).invoke({ toolName: 'bad' });
    expect(records[1]).toMatchObject({ type: 'completed', success: false, errorCode: 'execution' });
    const throwing = withAudit(tools, () => {
      throw new Error('sink down');
    });
    expect(await throwing.invoke({ toolName: 'ok' })).toMatchObject({
      success: true,
      output: 'fine',
    });
    const rejecting = withAudit(tools, () => Promise.reject(new Error('sink down')));
    expect(await rejecting.invoke({ toolName: 'ok' })).toMatchObject({ success: true });
  });

  it('rejects a missing sink or a bad redact option with invalid_argument', () => {
    const tools = new InMemoryToolExecutor({});
    expect(() => withAudit(tools, undefined as unknown as () => void)).toThrow(invalid);
    expect(() =>
      withAudit(tools, () => undefined, { redact: 'password' as unknown as string[] }),
    ).toThrow(invalid);
  });
});

describe('executor wrappers composed', () => {
  it('records timeouts and rate limits when audit is outermost', async () => {
    const records: ExecutorAuditRecord[] = [];
    const { executor } = hanging();
    const wrapped = withAudit(
      withRateLimit(withTimeout(executor, 20), { limit: 2, interval: 60_000, key: () => 'all' }),
      (r) => {
        records.push(r);
      },
    );
    await wrapped.invoke({ toolName: 'fast', payload: 1 });
    await wrapped.invoke({ toolName: 'hang' });
    await wrapped.invoke({ toolName: 'fast', payload: 2 });
    const completed = records.filter((r) => r.type === 'completed');
    expect(completed.map((r) => r.errorCode)).toEqual([undefined, 'timeout', 'rate_limited']);
  });

  it('sees only what gets through when audit is innermost', async () => {
    const records: ExecutorAuditRecord[] = [];
    const { executor } = hanging();
    const wrapped = withTimeout(
      withRateLimit(
        withAudit(executor, (r) => {
          records.push(r);
        }),
        { limit: 1, interval: 60_000, key: () => 'all' },
      ),
      20,
    );
    expect(await wrapped.invoke({ toolName: 'hang' })).toMatchObject({ errorCode: 'timeout' });
    expect(await wrapped.invoke({ toolName: 'fast' })).toMatchObject({ errorCode: 'rate_limited' });
    // The hanging call was let through (invoked); the limited one never arrived.
    expect(records[0]).toMatchObject({ type: 'invoked', toolName: 'hang' });
    expect(records.filter((r) => r.toolName === 'fast')).toEqual([]);
  });

  it('keeps the never-rejects contract around an executor that rejects', async () => {
    const broken: ToolExecutor = { invoke: () => Promise.reject(new Error('broken')) };
    const records: ExecutorAuditRecord[] = [];
    const wrapped = withTimeout(
      withAudit(withRateLimit(broken, { limit: 5, interval: 1000 }), (r) => {
        records.push(r);
      }),
      1000,
    );
    expect(await wrapped.invoke({ toolName: 'x' })).toMatchObject({
      success: false,
      errorCode: 'execution',
      errorMessage: 'broken',
    });
    expect(records[1]).toMatchObject({ success: false, errorCode: 'execution' });
  });
});
