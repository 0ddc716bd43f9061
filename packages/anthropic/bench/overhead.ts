// Adapter overhead of runToolUses against calling the runner directly, on a local tool (so the
// adapter is all that differs), and 16 calls in parallel against one at a time. Run with
// `pnpm --filter @toolplane/anthropic bench`.
import { benchSource, runProviderBench } from '@toolplane/test-support/bench';
import { runToolUses, toAnthropicTools } from '../src/index.js';

const source = benchSource();
const tools = await toAnthropicTools(source);
await runProviderBench(source, {
  label: 'runToolUses',
  turn: (calls) =>
    calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args })),
  run: (turn, options) => runToolUses(source, turn, { tools, ...options }),
});
