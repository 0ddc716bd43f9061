import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { spareCore, SPIN_ENV, SpinPolicy } from './channel.js';
import { execute, workerSpinMs, type CallAnswer, type SandboxCall } from './execute.js';
import { SandboxPool } from './pool.js';
import { CODE_MODE_DEFAULTS } from './code-mode.js';

// The fast path with its spin forced on and off: the machine's load decides it otherwise, and a
// loaded test machine would never take the spinning branch.

const limits = {
  memoryLimitBytes: CODE_MODE_DEFAULTS.memoryLimitBytes,
  maxStackBytes: CODE_MODE_DEFAULTS.maxStackBytes,
  maxToolCalls: 10_000,
  maxSearches: CODE_MODE_DEFAULTS.maxSearches,
  maxLogBytes: CODE_MODE_DEFAULTS.maxLogBytes,
  maxResultBytes: CODE_MODE_DEFAULTS.maxResultBytes,
};
const tools = [{ namespace: 't', name: 'add', id: 't:add' }];
const pool = new SandboxPool(1, limits);
afterAll(async () => {
  await pool.close();
});

/** Answers `t:add` at once, or after a turn of the event loop for odd `a`. */
async function add(call: SandboxCall): Promise<CallAnswer> {
  const { a, b } = JSON.parse(call.json) as { a: number; b: number };
  if (a % 2 === 1) await new Promise((resolve) => setImmediate(resolve));
  return { ok: true, json: JSON.stringify({ sum: a + b }) };
}

const PROGRAM = `
  let total = 0;
  for (let i = 0; i < 300; i++) total += (await tools.t.add({ a: i, b: 1 })).sum;
  const together = await Promise.all(
    Array.from({ length: 50 }, (_, i) => tools.t.add({ a: i, b: i })),
  );
  return { total, together: together.map((r) => r.sum) };
`;
const EXPECTED = {
  total: Array.from({ length: 300 }, (_, i) => i + 1).reduce((x, y) => x + y, 0),
  together: Array.from({ length: 50 }, (_, i) => 2 * i),
};

describe('the run channel', () => {
  for (const spin of [true, false]) {
    it(`answers sequential and concurrent calls alike with the spin ${spin ? 'on' : 'off'}`, async () => {
      const ended = await execute(pool, {
        program: PROGRAM,
        tools,
        limits,
        timeoutMs: 30_000,
        signal: undefined,
        onCall: add,
        spin,
      });
      expect(ended.outcome).toEqual({ ok: true, json: JSON.stringify(EXPECTED) });
    });
  }

  // The worker settles one batch of answers while the main thread posts the next: that batch
  // must wake the worker's next wait even though it was posted before the wait began. The first
  // answer is large, so that settling it (parsing it inside QuickJS) takes a while, and the
  // second comes a few milliseconds later, while the worker is still at it.
  for (const spin of [true, false]) {
    it(`takes answers posted while it settled earlier ones, with the spin ${spin ? 'on' : 'off'}`, async () => {
      const big = JSON.stringify({
        rows: Array.from({ length: 40_000 }, (_, i) => ({ i, s: 'row' })),
      });
      const ended = await execute(pool, {
        program: `
          const [first, second] = await Promise.all([
            tools.t.add({ a: 0, b: 0 }),
            tools.t.add({ a: 1, b: 1 }),
          ]);
          return { rows: first.rows.length, sum: second.sum };
        `,
        tools,
        limits,
        // Well past the ~40 ms it takes: before the fix the run slept until this ran out.
        timeoutMs: 15_000,
        signal: undefined,
        onCall: async (call) => {
          const { a, b } = JSON.parse(call.json) as { a: number; b: number };
          if (a === 0) return { ok: true, json: big };
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { ok: true, json: JSON.stringify({ sum: a + b }) };
        },
        spin,
      });
      expect(ended.outcome).toEqual({ ok: true, json: JSON.stringify({ rows: 40_000, sum: 2 }) });
    });
  }

  it('stops a program that spins while the main thread would spin too', async () => {
    const ended = await execute(pool, {
      program: 'await tools.t.add({ a: 0, b: 0 }); while (true) {}',
      tools,
      limits,
      timeoutMs: 300,
      signal: undefined,
      onCall: add,
      spin: true,
    });
    expect(ended.outcome).toMatchObject({ ok: false, code: 'timeout' });
  });
});

describe('SpinPolicy', () => {
  const bounds = { minMs: 0.05, maxMs: 1, probeEvery: 4 };

  it('spins at least the minimum while answers come at once', () => {
    const policy = new SpinPolicy(bounds);
    expect(policy.budget()).toBe(0.05);
    for (let i = 0; i < 8; i++) policy.record(0.005);
    expect(policy.budget()).toBe(0.05);
  });

  it('spins twice the typical wait while that stays within the bound', () => {
    const policy = new SpinPolicy(bounds);
    for (let i = 0; i < 8; i++) policy.record(0.25);
    expect(policy.budget()).toBeCloseTo(0.5);
  });

  it('takes the typical wait as the median of the last eight, in any order', () => {
    const policy = new SpinPolicy(bounds);
    for (const waited of [0.3, 0.1, 0.4, 0.2, 0.15, 0.35, 0.05, 0.25]) policy.record(waited);
    expect(policy.budget()).toBeCloseTo(0.4);
    // The oldest (0.3) leaves the window: the lower middle of the eight is now 0.15.
    policy.record(0.01);
    expect(policy.budget()).toBeCloseTo(0.3);
  });

  it('keeps spinning through one slow wait among quick ones', () => {
    const policy = new SpinPolicy(bounds);
    for (let i = 0; i < 8; i++) policy.record(0.01);
    policy.record(5);
    expect(policy.budget()).toBe(0.05);
  });

  it('sleeps through slow answers, probing every few waits, and spins again once fast', () => {
    const policy = new SpinPolicy(bounds);
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      policy.record(2);
      seen.push(policy.budget());
    }
    expect(seen).toEqual([0, 0, 0, 0.05, 0, 0, 0, 0.05]);
    // A probe answered within its spin is tried again at once, until the window turns fast.
    const after: number[] = [];
    for (let i = 0; i < 5; i++) {
      policy.record(0.01);
      after.push(policy.budget());
    }
    expect(after).toEqual([0.05, 0.05, 0.05, 0.05, 0.05]);
  });
});

describe('spareCore', () => {
  it('follows the benchmark switch over the load rule', () => {
    const before = process.env[SPIN_ENV];
    try {
      process.env[SPIN_ENV] = 'on';
      expect(spareCore()).toBe(true);
      process.env[SPIN_ENV] = 'off';
      expect(spareCore()).toBe(false);
    } finally {
      if (before === undefined) Reflect.deleteProperty(process.env, SPIN_ENV);
      else process.env[SPIN_ENV] = before;
    }
  });
});

describe('workerSpinMs', () => {
  it('lets a worker spin through an upstream call only while every run has a core', () => {
    const cores = availableParallelism();
    expect(workerSpinMs(Math.max(0, cores - 2))).toBe(cores >= 2 ? 1 : 0.05);
    expect(workerSpinMs(cores - 1)).toBe(0.05);
    expect(workerSpinMs(cores + 3)).toBe(0.05);
  });
});
