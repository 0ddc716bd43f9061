export { toAnthropicTools } from './tools.js';
export type { AnthropicToolsOptions } from './tools.js';
export { runToolUses } from './run.js';
export type { AnthropicTurn, RunToolUsesOptions } from './run.js';
export type { CallProgress, ToolFilter, ToolSelector, ToolSource } from '@toolplane/adapter-kit';
export { withApproval } from '@toolplane/adapter-kit';
