import { createToolkit, runInSession, ToolError, type Session } from '@toolplane/toolkit';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinTools, type BuiltinToolsOptions } from '../builtins.js';
import { HeavyPool, PoolBusyError } from './pool.js';

// 1M characters take text_stats seconds of CPU and almost no memory: a hog that needs no heap.
const HOG_TEXT = 'Some words here. '.repeat(58_823);
// About twice as slow to count: emoji, marks, CJK and line breaks.
const SLOW = 'Ça va? 👍🏽 e\u0301t\u00e9 — 中文句子。\r\nNext line, with words. ';
const SLOW_TEXT = SLOW.repeat(Math.floor(1_000_000 / SLOW.length));
const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

function open(options: BuiltinToolsOptions) {
  const tools = builtinTools(options);
  const toolkit = createToolkit({ tools });
  opened.push(toolkit, tools);
  const as = (caller: string, name: string, args: Record<string, unknown>) =>
    runInSession({ id: caller }, () => toolkit.callTool(`builtin:${name}`, args));
  return { as, tools };
}

/** The code a call fails with: the handler's own, under the runner's `execution`, or `ok`. */
function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'ok',
    (error: unknown) => {
      const inner = ToolError.isInstance(error) && error.code === 'execution' ? error.cause : error;
      return ToolError.isInstance(inner) ? inner.code : 'not a ToolError';
    },
  );
}

describe('HeavyPool fairness', () => {
  it('serves another caller at once while one caller keeps the heavy builtins busy', async () => {
    const { as, tools } = open({ pool: { threads: 2, perCaller: 1, timeoutMs: 60_000 } });
    let stop = false;
    const hogs = [0, 1].map(async () => {
      while (!stop) await outcome(as('hog', 'text_stats', { text: HOG_TEXT }));
    });
    const victims: string[] = [];
    for (let i = 0; i < 6; i++) {
      victims.push(await outcome(as('victim', 'json_query', { expression: 'a', data: { a: i } })));
      victims.push(
        await outcome(as('victim', 'text_stats', { text: 'A short one. '.repeat(800) })),
      );
    }
    stop = true;
    // Ends the hog's call in progress rather than waiting for it.
    await tools.close();
    await Promise.all(hogs);
    expect(victims).toEqual(Array.from({ length: 12 }, () => 'ok'));
  });

  it('counts the time limit from when a task runs, not from when it is queued', async () => {
    // The hog must outlast the limit, which depends on the machine: a run where it finished in
    // time proves nothing, so the limit halves until the hog is stopped by it.
    let conclusive = false;
    for (let timeoutMs = 2_000; timeoutMs >= 250 && !conclusive; timeoutMs /= 2) {
      const { as, tools } = open({ pool: { threads: 1, timeoutMs } });
      const hog = outcome(as('hog', 'text_stats', { text: SLOW_TEXT }));
      // Waits for the hog's whole limit, then runs on a new thread: a clock started at queueing
      // would have run out by then, so it would fail as soon as the hog's thread ended.
      const victim = outcome(as('victim', 'json_query', { expression: 'a', data: { a: 1 } }));
      const [hogs, victims] = await Promise.all([hog, victim]);
      await tools.close();
      if (hogs !== 'timeout') continue;
      // Nor does the victim's new thread's start count, however busy the machine.
      expect(victims).toBe('ok');
      conclusive = true;
    }
    expect(conclusive).toBe(true);
  });

  it("counts the time limit from when a task runs, not from its thread's start", async () => {
    // A fresh pool loads piscina, starts a thread and loads the worker's modules (here through
    // tsx, from source) before its first task runs: far longer than this limit, and longer
    // still on a busy machine. A tiny query runs well inside it.
    const { as } = open({ pool: { threads: 1, timeoutMs: 250 } });
    expect(await outcome(as('first', 'json_query', { expression: 'a', data: { a: 1 } }))).toBe(
      'ok',
    );
  });

  it('refuses a caller past its queue with rate_limited and a retry delay, others still queue', async () => {
    let caller = 'hog';
    const pool = new HeavyPool({
      threads: 1,
      perCallerQueue: 2,
      queue: 3,
      timeoutMs: 30_000,
      callerOf: () => caller,
    });
    opened.push(pool);
    const run = () => pool.run({ kind: 'text_stats', text: HOG_TEXT, locale: 'en' });
    const settled = [run(), run(), run()].map((p) => outcome(p));
    const refused = await run().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PoolBusyError);
    expect(refused).toMatchObject({ code: 'rate_limited' });
    expect((refused as PoolBusyError).retryAfterMs).toBeGreaterThan(0);
    caller = 'other';
    const other = outcome(run());
    // The pool's queue is full now (hog 2, other 1): a third caller is refused too.
    caller = 'third';
    expect(await outcome(run())).toBe('rate_limited');
    await pool.close();
    expect(await Promise.all([...settled, other])).toEqual(expect.arrayContaining(['cancelled']));
  });

  it('counts the sessions of one HTTP source as one caller, unless an OAuth subject names it', async () => {
    const pool = new HeavyPool({ threads: 1, perCallerQueue: 1, timeoutMs: 30_000 });
    opened.push(pool);
    const run = (session: Partial<Session>) =>
      outcome(
        runInSession(session, () => pool.run({ kind: 'text_stats', text: HOG_TEXT, locale: 'en' })),
      );
    const local = '127.0.0.1';
    const settled = [run({ id: 's1', source: local }), run({ id: 's2', source: local })];
    // A new session of a source whose one waiting task is queued: refused, not a share of its own.
    expect(await run({ id: 's3', source: local })).toBe('rate_limited');
    const alice = { subject: 'alice', clientId: 'c', scopes: [], issuer: 'i', expiresAt: 0 };
    settled.push(
      run({ id: 's4', source: '127.0.0.2' }),
      run({ id: 's5', source: local, auth: alice }),
    );
    await pool.close();
    expect(await Promise.all(settled)).not.toContain('rate_limited');
  });

  it('runs a task that finds a free thread even when no task may wait', async () => {
    const pool = new HeavyPool({ threads: 1, perCallerQueue: 0, timeoutMs: 30_000 });
    opened.push(pool);
    const counted = await pool.run({ kind: 'text_stats', text: 'One. Two.', locale: 'en' });
    expect(counted).toMatchObject({ counts: { sentences: 2 } });
  });

  it('survives the worker pool’s error event (a result racing its task’s time limit)', async () => {
    const pool = new HeavyPool({ threads: 1, timeoutMs: 30_000 });
    opened.push(pool);
    await pool.run({ kind: 'text_stats', text: 'One.', locale: 'en' });
    // What Piscina emits when a stopped task's result still arrives: unheard, it would throw.
    // The pool is made (piscina loaded) with the first task: the field holds its promise.
    const workers = await (pool as unknown as { workers: Promise<NodeJS.EventEmitter> }).workers;
    expect(() => workers.emit('error', new Error('Unexpected message from Worker'))).not.toThrow();
    expect(await pool.run({ kind: 'text_stats', text: 'Two. Three.', locale: 'en' })).toMatchObject(
      {
        counts: { sentences: 2 },
      },
    );
  });

  it('refuses settings that are not positive integers', () => {
    expect(errorMessageOf(() => new HeavyPool({ threads: 0 }), 'invalid_argument')).toBe(
      'builtinTools({ pool: { threads } }) must be a whole number, 1 or more, got 0',
    );
    expect(errorMessageOf(() => new HeavyPool({ perCaller: Number.NaN }), 'invalid_argument')).toBe(
      'builtinTools({ pool: { perCaller } }) must be a whole number, 1 or more, got NaN',
    );
    expect(errorMessageOf(() => new HeavyPool({ queue: -1 }), 'invalid_argument')).toBe(
      'builtinTools({ pool: { queue } }) must be a whole number, 0 or more, got -1',
    );
    // A JavaScript caller's `null` is a value, not the default.
    expect(errorMessageOf(() => new HeavyPool({ heapMb: null } as never), 'invalid_argument')).toBe(
      'builtinTools({ pool: { heapMb } }) must be a whole number, 1 or more, got null',
    );
    expect(new HeavyPool({ queue: 0, perCallerQueue: 0 })).toBeInstanceOf(HeavyPool);
  });

  it('refuses a key it does not take, and a time limit a timer cannot keep', () => {
    expect(
      errorMessageOf(() => builtinTools({ pool: { timeout: 500 } as never }), 'invalid_argument'),
    ).toBe('builtinTools({ pool }): unknown option "timeout"; did you mean "timeoutMs"?');
    expect(
      errorMessageOf(() => builtinTools({ onlly: ['time_now'] } as never), 'invalid_argument'),
    ).toBe('builtinTools: unknown option "onlly"; did you mean "only"?');
    // Node fires a timer past 2^31 - 1 ms after 1 ms: every task would time out as it began.
    expect(
      errorMessageOf(() => builtinTools({ pool: { timeoutMs: 2 ** 31 } }), 'invalid_argument'),
    ).toContain('builtinTools({ pool: { timeoutMs } }) must be a number of milliseconds above 0');
  });
});
