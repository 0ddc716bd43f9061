import type { ToolErrorCode } from '@toolplane/toolmodel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_MODE_DEFAULTS, createCodeMode, type CodeMode } from './code-mode.js';
import { execute, type CallAnswer, type ExecuteRequest } from './execute.js';
import { SandboxPool, type SandboxWorker } from './pool.js';
import { codeOf } from './testing/outcome.js';
import { localToolkit } from './testing/local-toolkit.js';

// Ordinary programs that make the engine work hard: a heap that grows while the program runs, a
// chain of microtasks, thousands of calls at once, brackets nested past the stack bound. Each
// ends as its own bounds say, never with a failure of the engine, and the next run on the same
// pool works. Before the fix each of them aborted QuickJS as its runtime was disposed, and the
// run ended with `internal`.

type Mode = 'plain' | 'unhurried' | 'roomy';
let modes: Record<Mode, CodeMode>;
beforeAll(() => {
  const { toolkit } = localToolkit();
  modes = {
    plain: createCodeMode(toolkit, { maxConcurrentRuns: 1 }),
    // A wall-clock bound no loaded machine reaches before the call bound is.
    unhurried: createCodeMode(toolkit, { maxConcurrentRuns: 1, timeoutMs: 60_000 }),
    // Memory that a chain of microtasks does not fill in the 1 s it is given.
    roomy: createCodeMode(toolkit, {
      maxConcurrentRuns: 1,
      timeoutMs: 1_000,
      memoryLimitBytes: 256 << 20,
    }),
  };
});
afterAll(async () => {
  await Promise.all(Object.values(modes).map((mode) => mode.close()));
});

const NESTED = `return ${'['.repeat(10_000)}${']'.repeat(10_000)};`;

async function stillWorks(on: CodeMode): Promise<void> {
  const { value } = await on.run('return (await tools.builtin.add({ a: 2, b: 3 })).sum;');
  expect(value).toBe(5);
}

const cases: readonly [string, string, ToolErrorCode, Mode][] = [
  ['a value past the result bound', 'return "x".repeat(3e6);', 'resource_exhausted', 'plain'],
  [
    '5,000 tool calls at once',
    'const ps = [];\nfor (let i = 0; i < 5000; i++) ps.push(tools.builtin.add({ a: i, b: 1 }));\nawait Promise.all(ps);',
    'resource_exhausted',
    'unhurried',
  ],
  [
    'an endless chain of microtasks',
    'const p = () => Promise.resolve().then(p);\np();\nawait new Promise(() => {});',
    'timeout',
    'roomy',
  ],
  ['brackets nested 10,000 deep', NESTED, 'resource_exhausted', 'plain'],
];

describe('a run that works the engine hard', () => {
  it('returns the value of a program whose heap grows after an await', async () => {
    const { value } = await modes.plain.run(
      'await null;\nconst parts = [];\nfor (let i = 0; i < 6; i++) parts.push("x".repeat(4e6) + i);\nreturn parts.length;',
    );
    expect(value).toBe(6);
    await stillWorks(modes.plain);
  });

  for (const [what, program, expected, mode] of cases) {
    it(`gives ${expected} to ${what}, and the next run works`, async () => {
      expect(await codeOf(program, modes[mode])).toBe(expected);
      await stillWorks(modes[mode]);
    });
  }
});

// The worker's side of an engine failure, on a pool of its own: what the run ended with reaches
// the caller, and the worker is ended rather than handed to the next run.

const limits = {
  memoryLimitBytes: CODE_MODE_DEFAULTS.memoryLimitBytes,
  maxStackBytes: CODE_MODE_DEFAULTS.maxStackBytes,
  maxToolCalls: CODE_MODE_DEFAULTS.maxToolCalls,
  maxSearches: CODE_MODE_DEFAULTS.maxSearches,
  maxLogBytes: CODE_MODE_DEFAULTS.maxLogBytes,
  maxResultBytes: CODE_MODE_DEFAULTS.maxResultBytes,
};

/** The workers `pool` hands out, in order, to watch or to end them. */
function handedOut(pool: SandboxPool): SandboxWorker[] {
  const seen: SandboxWorker[] = [];
  const acquire = pool.acquire.bind(pool);
  pool.acquire = async (signal) => {
    const acquired = await acquire(signal);
    seen.push(acquired.worker);
    return acquired;
  };
  return seen;
}

function request(program: string, more: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return {
    program,
    tools: [{ namespace: 't', name: 'add', id: 't:add' }],
    limits,
    timeoutMs: 60_000,
    signal: undefined,
    onCall: (call) => {
      const { a, b } = JSON.parse(call.json) as { a: number; b: number };
      return Promise.resolve({ ok: true, json: JSON.stringify({ sum: a + b }) });
    },
    ...more,
  };
}

describe('a worker made for the stack bound', () => {
  it('reaches the bound of QuickJS before the stack of V8, and keeps its worker', async () => {
    const pool = new SandboxPool(1, limits);
    const workers = handedOut(pool);
    try {
      const ended = await execute(pool, request(NESTED));
      expect(ended.outcome).toMatchObject({ ok: false, code: 'resource_exhausted' });
      const next = await execute(pool, request('return (await tools.t.add({ a: 2, b: 3 })).sum;'));
      expect(next.outcome).toEqual({ ok: true, json: '5' });
      expect(workers[1]).toBe(workers[0]);
    } finally {
      await pool.close();
    }
  });
});

describe('a worker whose engine fails', () => {
  it('reports the run as it ended and is replaced when V8 runs out of stack inside QuickJS', async () => {
    // Workers made for a 16 KiB bound get little more than Node's own stack, so a run held to
    // 512 KiB runs out of V8's stack inside the engine before QuickJS's bound is reached.
    const pool = new SandboxPool(1, { ...limits, maxStackBytes: 16 << 10 });
    const workers = handedOut(pool);
    try {
      const ended = await execute(pool, request(NESTED));
      expect(ended.outcome).toMatchObject({ ok: false, code: 'resource_exhausted' });
      expect(workers[0]?.dead).toBe(true);
      const next = await execute(pool, request('return (await tools.t.add({ a: 2, b: 3 })).sum;'));
      expect(next.outcome).toEqual({ ok: true, json: '5' });
      expect(workers[1]).not.toBe(workers[0]);
    } finally {
      await pool.close();
    }
  });

  it('ends a cancelled run as cancelled when its worker dies before it reports', async () => {
    const pool = new SandboxPool(1, limits);
    const workers = handedOut(pool);
    const controller = new AbortController();
    try {
      const ended = await execute(
        pool,
        request('await tools.t.add({ a: 1, b: 1 });', {
          signal: controller.signal,
          // The worker waits for this answer: it is ended as the run is cancelled.
          onCall: () => {
            void workers[0]?.thread.terminate();
            controller.abort();
            return new Promise<CallAnswer>(() => undefined);
          },
        }),
      );
      expect(ended.outcome).toMatchObject({ ok: false, code: 'cancelled' });
    } finally {
      await pool.close();
    }
  });
});
