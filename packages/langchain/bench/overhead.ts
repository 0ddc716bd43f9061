// Per-call overhead of a LangChain tool from toLangChainTools against calling the runner
// directly, on a local tool (so the adapter is all that differs): invoked with plain arguments
// (content only) and with a model's tool call (a ToolMessage with its artifact). LangChain's own
// invoke machinery (config, callback manager, run name) costs on every call whoever wrote the
// tool, so a second baseline is the tool a user would write by hand with LangChain's `tool()`
// and the same JSON Schema, calling the runner: the difference to it is the adapter's own share
// (LangChain's `tool()` also validates the schema again, which this adapter leaves to the
// runner). A third baseline is the least any LangChain tool run pays: the runner plus LangChain's
// config and callback-manager setup (`CallbackManager.configure` consults tracing settings and
// context hooks on every run, with or without callbacks). Rounds are interleaved across cases (see @toolplane/test-support/bench); the target is
// ≤ 5 µs per call. Run with `pnpm --filter @toolplane/langchain bench`.
import { CallbackManager, parseCallbackConfigArg } from '@langchain/core/callbacks/manager';
import { ToolMessage } from '@langchain/core/messages';
import { ensureConfig, mergeConfigs } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import {
  benchSource,
  compare,
  header,
  overheadLine,
  timingLine,
} from '@toolplane/test-support/bench';
import { toLangChainTools } from '../src/index.js';

const source = benchSource();
const { runner } = source;
const schema = {
  type: 'object' as const,
  properties: { a: { type: 'number' as const }, b: { type: 'number' as const } },
  required: ['a', 'b'],
};
const [adapted] = await toLangChainTools(source, { include: { ids: ['bench:add'] } });
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

/** What LangChain does on every tool run whoever wrote the tool: config, callback manager. */
function runSetup(): void {
  const config = parseCallbackConfigArg(ensureConfig(mergeConfigs(undefined, undefined)));
  CallbackManager.configure(config.callbacks, undefined, config.tags, undefined, config.metadata);
}

const samples = await compare(
  {
    runner: () => runner.run('bench:add', args),
    "runner + LangChain's run setup": () => {
      runSetup();
      return runner.run('bench:add', args);
    },
    "runner + run setup + LangChain's ToolMessage": async () => {
      runSetup();
      const run = await runner.run('bench:add', args);
      return new ToolMessage({
        status: 'success',
        content: JSON.stringify(run.structured),
        artifact: run,
        tool_call_id: call.id,
        name: call.name,
      });
    },
    'LangChain tool() by hand, args': () => handWritten.invoke(args),
    'LangChain tool() by hand, tool call': () => handWritten.invoke(call),
    'adapter, args': () => adapted.invoke(args),
    'adapter, tool call': () => adapted.invoke(call),
  },
  { iterations: 2_000 },
);

const setup = "runner + LangChain's run setup";
console.log(header('LangChain adapter overhead per call', samples));
for (const name of Object.keys(samples.wall)) console.log(timingLine(name, samples, name));
console.log(overheadLine("LangChain's own run setup vs runner", samples, setup, 'runner'));
console.log(
  overheadLine(
    "LangChain's run setup + ToolMessage vs runner",
    samples,
    "runner + run setup + LangChain's ToolMessage",
    'runner',
  ),
);
for (const name of ['adapter, args', 'adapter, tool call']) {
  console.log(overheadLine(`${name} vs runner`, samples, name, 'runner', { target: 5 }));
  console.log(overheadLine(`${name} vs runner + run setup`, samples, name, setup, { target: 5 }));
  if (name.endsWith('tool call')) {
    const message = "runner + run setup + LangChain's ToolMessage";
    console.log(
      overheadLine(`${name} vs that + ToolMessage`, samples, name, message, { target: 5 }),
    );
  }
  const byHand = name.endsWith('args')
    ? 'LangChain tool() by hand, args'
    : 'LangChain tool() by hand, tool call';
  console.log(overheadLine(`${name} vs tool() by hand`, samples, name, byHand));
}
