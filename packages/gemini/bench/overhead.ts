// Adapter overhead of runFunctionCalls against calling the runner directly, on a local tool (so
// the adapter is all that differs), and 16 calls in parallel against one at a time. Run with
// `pnpm --filter @toolplane/gemini bench`.
import { benchSource, runProviderBench } from '@toolplane/test-support/bench';
import { runFunctionCalls, toGeminiTools } from '../src/index.js';

const source = benchSource();
const tools = await toGeminiTools(source);
await runProviderBench(source, {
  label: 'runFunctionCalls',
  turn: (calls) => ({
    functionCalls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args })),
  }),
  run: (turn, options) => runFunctionCalls(source, turn, { tools, ...options }),
});
