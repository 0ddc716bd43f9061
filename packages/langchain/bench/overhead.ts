// Per-call overhead of a LangChain tool from toLangChainTools against calling the runner
// directly, on a local tool (so the adapter is all that differs): invoked with plain arguments
// (content only) and with a model's tool call (a ToolMessage with its artifact). LangChain's own
// invoke machinery (config, callback manager, run name) costs on every call whoever wrote the
// tool, so a second baseline is the tool a user would write by hand with LangChain's `tool()`
// and the same JSON Schema, calling the runner: the difference to it is the adapter's own share
// (LangChain's `tool()` also validates the schema again, which this adapter leaves to the
// runner). A third baseline is the least any LangChain tool run pays: the runner plus LangChain's
// config and callback-manager setup (`CallbackManager.configure` consults tracing settings and
// context hooks on every run, with or without callbacks). Rounds are interleaved across cases and the median round is reported; the target is
// ≤ 5 µs per call. Run with `pnpm --filter @toolplane/langchain bench`.
import { CallbackManager, parseCallbackConfigArg } from '@langchain/core/callbacks/manager';
import { ensureConfig, mergeConfigs } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { toLangChainTools } from '../src/index.js';

const ROUNDS = 15;
const CALLS = 5_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function compare(
  cases: Record<string, () => Promise<unknown>>,
): Promise<Record<string, number>> {
  const names = Object.keys(cases);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) for (let i = 0; i < CALLS / 5; i++) await cases[name]!(); // warm-up
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
const schema = {
  type: 'object' as const,
  properties: { a: { type: 'number' as const }, b: { type: 'number' as const } },
  required: ['a', 'b'],
};
index.registerTool(
  { namespace: 'bench', name: 'add', description: 'Adds two numbers.', inputSchema: schema },
  { kind: 'local', local: { name: 'add' } },
);
const runner = createRunner({ index, local });
const [adapted] = await toLangChainTools({ index, runner });
if (adapted === undefined) throw new Error('no bench__add tool');
const handWritten = tool(
  async (args: unknown) =>
    JSON.stringify((await runner.run('bench:add', args as never)).structured),
  { name: 'bench__add', description: 'Adds two numbers.', schema },
);

const args = { a: 2, b: 3 };
const call = { id: 'call', name: 'bench__add', args, type: 'tool_call' as const };
const message = await adapted.invoke(call);
if (message.content !== '{"sum":5}') throw new Error('the benchmark tool gives the wrong answer');

const us = await compare({
  runner: () => runner.run('bench:add', args),
  "runner + LangChain's run setup": () => {
    const config = parseCallbackConfigArg(ensureConfig(mergeConfigs(undefined, undefined)));
    CallbackManager.configure(config.callbacks, undefined, config.tags, undefined, config.metadata);
    return runner.run('bench:add', args);
  },
  'LangChain tool() by hand, args': () => handWritten.invoke(args),
  'LangChain tool() by hand, tool call': () => handWritten.invoke(call),
  'adapter, args': () => adapted.invoke(args),
  'adapter, tool call': () => adapted.invoke(call),
});

const signed = (delta: number): string =>
  `${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(3)} µs`;
const base = us.runner!;
console.log(`LangChain adapter overhead per call (median of ${ROUNDS} rounds of ${CALLS} calls)`);
for (const [name, value] of Object.entries(us)) {
  const vsRunner = name === 'runner' ? '' : `  ${signed(value - base)} vs runner`;
  const byHand = name.startsWith('adapter')
    ? us[
        name.endsWith('args')
          ? 'LangChain tool() by hand, args'
          : 'LangChain tool() by hand, tool call'
      ]!
    : undefined;
  const own =
    byHand === undefined
      ? ''
      : `, ${signed(value - us["runner + LangChain's run setup"]!)} vs runner + run setup, ${signed(value - byHand)} vs tool() by hand`;
  console.log(`  ${name.padEnd(38)} ${value.toFixed(3).padStart(8)} µs/call${vsRunner}${own}`);
}
