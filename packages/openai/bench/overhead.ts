// Adapter overhead of runToolCalls against calling the runner directly, on a local tool (so the
// adapter is all that differs), and 16 calls in parallel against one at a time. Run with
// `pnpm --filter @toolplane/openai bench`.
import { benchSource, runProviderBench } from '@toolplane/test-support/bench';
import { runToolCalls, toOpenAITools } from '../src/index.js';

const source = benchSource();
const tools = await toOpenAITools(source);
await runProviderBench(source, {
  label: 'runToolCalls (Chat Completions)',
  turn: (calls) => ({
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    })),
  }),
  run: (turn, options) => runToolCalls(source, turn, { tools, ...options }),
});
