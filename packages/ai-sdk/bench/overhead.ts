// Per-call overhead of an AI SDK tool from toAiSdkTools against calling the runner directly, on
// a local tool (so the adapter is all that differs): execute as one promise (progress: false),
// execute as an async iterable drained to its result (the default, with progress), and
// toModelOutput on the result. The iterable passes the runner a signal of its own (so leaving the
// iteration cancels the call) and a progress listener, which cost the runner itself; a second
// baseline calls the runner with the same, so the adapter's own share shows apart. Rounds are
// interleaved across cases (see @toolplane/test-support/bench); the target is ≤ 5 µs per call.
// Run with `pnpm --filter @toolplane/ai-sdk bench`.
import {
  benchSource,
  compare,
  header,
  overheadLine,
  timingLine,
} from '@toolplane/test-support/bench';
import type { ToolExecutionOptions, ToolSet } from 'ai';
import { toAiSdkTools, toModelOutput, type AiSdkToolOutput } from '../src/index.js';

const source = benchSource();
const { runner } = source;

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

const samples = await compare(
  {
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
  },
  { iterations: 5_000 },
);

console.log(header('AI SDK adapter overhead per call', samples));
for (const name of Object.keys(samples.wall)) console.log(timingLine(name, samples, name));
for (const name of [
  'execute (promise)',
  'execute (iterable)',
  'execute (iterable) + toModelOutput',
]) {
  console.log(overheadLine(`${name} vs runner`, samples, name, 'runner', { target: 5 }));
}
for (const name of ['execute (iterable)', 'execute (iterable) + toModelOutput']) {
  console.log(
    overheadLine(
      `${name} vs runner + signal + onProgress`,
      samples,
      name,
      'runner + signal + onProgress',
    ),
  );
}
