// Adapter overhead of runToolCalls against calling the runner directly, on a local tool (so the
// adapter is all that differs): one call per turn, and a turn of 16 calls. Then 16 calls of a
// tool that waits 5 ms, in parallel (concurrency 16) against one at a time (concurrency 1).
// Rounds are interleaved and the median round is reported. Run with
// `pnpm --filter @toolplane/openai bench`.
import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { runToolCalls, toOpenAITools } from '../src/index.js';

const ROUNDS = 11;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function compare(
  cases: Record<string, () => Promise<unknown>>,
  iterations: number,
): Promise<Record<string, number>> {
  const names = Object.keys(cases);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) for (let i = 0; i < iterations / 10; i++) await cases[name]!();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      const fn = cases[name]!;
      const start = performance.now();
      for (let i = 0; i < iterations; i++) await fn();
      samples[name]!.push(((performance.now() - start) * 1000) / iterations);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
}

const index = createIndex();
const local = createLocalRegistry()
  .register('add', (args) => {
    const { a, b } = args as { a: number; b: number };
    return { sum: a + b };
  })
  .register(
    'wait',
    () =>
      new Promise((resolve) =>
        setTimeout(() => {
          resolve('ok');
        }, 5),
      ),
  );
const schema = {
  type: 'object' as const,
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};
index.registerTool(
  { namespace: 'bench', name: 'add', inputSchema: schema },
  { kind: 'local', local: { name: 'add' } },
);
index.registerTool(
  { namespace: 'bench', name: 'wait', inputSchema: { type: 'object', properties: {} } },
  { kind: 'local', local: { name: 'wait' } },
);
const runner = createRunner({ index, local });
const source = { index, runner };
const tools = await toOpenAITools(source);
const call = (i: number, name = 'bench__add', args = '{"a":2,"b":3}') => ({
  id: `c${String(i)}`,
  type: 'function',
  function: { name, arguments: args },
});
const one = { tool_calls: [call(0)] };
const sixteen = { tool_calls: Array.from({ length: 16 }, (_, i) => call(i)) };

const perCall = await compare(
  {
    'runner.run directly': () => runner.run('bench:add', { a: 2, b: 3 }),
    'runToolCalls, 1 call': () => runToolCalls(source, one, { tools }),
  },
  20_000,
);
const perTurn = await compare(
  {
    '16 × runner.run': () =>
      Promise.all(Array.from({ length: 16 }, () => runner.run('bench:add', { a: 2, b: 3 }))),
    'runToolCalls, 16 calls': () => runToolCalls(source, sixteen, { tools, concurrency: 16 }),
  },
  2_000,
);
const waits = { tool_calls: Array.from({ length: 16 }, (_, i) => call(i, 'bench__wait', '{}')) };
const parallel = await compare(
  {
    'sequential (concurrency 1)': () => runToolCalls(source, waits, { tools, concurrency: 1 }),
    'parallel (concurrency 16)': () => runToolCalls(source, waits, { tools, concurrency: 16 }),
  },
  3,
);

const floor = perCall['runner.run directly']!;
const adapter = perCall['runToolCalls, 1 call']!;
const floor16 = perTurn['16 × runner.run']!;
const adapter16 = perTurn['runToolCalls, 16 calls']!;
console.log(`runner.run directly:        ${floor.toFixed(2)} µs per call (the floor)`);
console.log(
  `runToolCalls, 1 call:       ${adapter.toFixed(2)} µs (${(adapter / floor).toFixed(2)}× the floor, +${(adapter - floor).toFixed(2)} µs)`,
);
console.log(
  `runToolCalls, 16 calls:     ${(adapter16 / 16).toFixed(2)} µs per call (${(adapter16 / floor16).toFixed(2)}× the floor, +${((adapter16 - floor16) / 16).toFixed(2)} µs per call; target ≤ 5 µs)`,
);
const sequential = parallel['sequential (concurrency 1)']! / 1000;
const concurrent = parallel['parallel (concurrency 16)']! / 1000;
console.log(
  `16 calls of a 5 ms tool:    sequential ${sequential.toFixed(1)} ms, parallel ${concurrent.toFixed(1)} ms (${(sequential / concurrent).toFixed(1)}× faster)`,
);
