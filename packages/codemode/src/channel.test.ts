import { afterAll, describe, expect, it } from 'vitest';
import { SpinPolicy } from './channel.js';
import { execute, type CallAnswer, type SandboxCall } from './execute.js';
import { SandboxPool } from './pool.js';
import { CODE_MODE_DEFAULTS } from './code-mode.js';

// The fast path with its spin forced on and off: the machine's load decides it otherwise, and a
// loaded test machine would never take the spinning branch.

const limits = {
  memoryLimitBytes: CODE_MODE_DEFAULTS.memoryLimitBytes,
  maxStackBytes: CODE_MODE_DEFAULTS.maxStackBytes,
  maxToolCalls: 10_000,
  maxLogBytes: CODE_MODE_DEFAULTS.maxLogBytes,
  maxResultBytes: CODE_MODE_DEFAULTS.maxResultBytes,
};
const tools = [{ namespace: 't', name: 'add', id: 't:add' }];
const pool = new SandboxPool(1, limits.memoryLimitBytes);
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
  it('spins while answers come within the bound, and only probes after a slow one', () => {
    const policy = new SpinPolicy(0.05, 4);
    expect(policy.shouldSpin()).toBe(true);
    policy.record(0.01);
    expect(policy.shouldSpin()).toBe(true);
    const seen: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      policy.record(1);
      seen.push(policy.shouldSpin());
    }
    expect(seen).toEqual([false, false, false, true, false, false, false, true]);
    policy.record(0.02);
    expect(policy.shouldSpin()).toBe(true);
  });
});
