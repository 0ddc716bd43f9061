// Per-call overhead of an AI SDK tool from toAiSdkTools against calling the runner directly, on
// a local tool (so the adapter is all that differs): execute as one promise (progress: false),
// execute as an async iterable drained to its result (the default, with progress), and
// toModelOutput on the result. The iterable passes the runner a signal of its own (so leaving the
// iteration cancels the call) and a progress listener, which cost the runner itself; a second
// baseline calls the runner with the same, so the adapter's own share shows apart. Rounds are
// interleaved across cases and the median round is reported; the target is ≤ 5 µs per call. Run with `pnpm --filter @toolplane/ai-sdk bench`.
import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import type { ToolExecutionOptions, ToolSet } from 'ai';
import { toAiSdkTools, toModelOutput, type AiSdkToolOutput } from '../src/index.js';

const ROUNDS = 15;
const CALLS = 20_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function compare(
  cases: Record<string, () => Promise<unknown>>,
): Promise<Record<string, number>> {
  const names = Object.keys(cases);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) for (let i = 0; i < CALLS / 10; i++) await cases[name]!(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      const fn = cases[name]!;
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await fn();
      samples[name]!.push(((performance.now() - start) * 1000) / CALLS);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
}

const index = createIndex();
const local = createLocalRegistry().register('add', (args) => {
  const { a, b } = args as { a: number; b: number };
  return { sum: a + b };
});
index.registerTool(
  {
    namespace: 'bench',
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  },
  { kind: 'local', local: { name: 'add' } },
);
const runner = createRunner({ index, local });
const source = { index, runner };

function executeOf(tools: ToolSet) {
  const execute = tools.bench__add?.execute;
  if (execute === undefined) throw new Error('no bench__add tool');
  return execute as (input: unknown, options: ToolExecutionOptions) => unknown;
}
const once = executeOf(await toAiSdkTools(source, { progress: false }));
const streamed = executeOf(await toAiSdkTools(source));
const options: ToolExecutionOptions = { toolCallId: 'call', messages: [] };
const args = { a: 2, b: 3 };

async function drain(iterable: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of iterable) last = value;
  return last;
}

const output = (await drain(streamed(args, options) as AsyncIterable<unknown>)) as AiSdkToolOutput;
if (output.type !== 'result' || output.structuredContent?.sum !== 5) {
  throw new Error('the benchmark tool gives the wrong answer');
}

const us = await compare({
  runner: () => runner.run('bench:add', args),
  'runner + signal + onProgress': () =>
    runner.run('bench:add', args, {
      signal: new AbortController().signal,
      onProgress: () => undefined,
    }),
  'execute (promise)': () => once(args, options) as Promise<unknown>,
  'execute (iterable)': () => drain(streamed(args, options) as AsyncIterable<unknown>),
  'execute (iterable) + toModelOutput': async () =>
    toModelOutput((await drain(streamed(args, options) as AsyncIterable<unknown>)) as never),
});

const signed = (delta: number): string =>
  `${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(3)} µs`;
const base = us.runner!;
const withSignal = us['runner + signal + onProgress']!;
console.log(`AI SDK adapter overhead per call (median of ${ROUNDS} rounds of ${CALLS} calls)`);
for (const [name, value] of Object.entries(us)) {
  const extra = name === 'runner' ? '' : `  ${signed(value - base)} vs runner`;
  const own = name.startsWith('execute (iterable)')
    ? `, ${signed(value - withSignal)} vs runner + signal + onProgress`
    : '';
  console.log(`  ${name.padEnd(36)} ${value.toFixed(3).padStart(7)} µs/call${extra}${own}`);
}
