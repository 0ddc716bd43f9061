export { toGeminiTools } from './tools.js';
export type { GeminiToolsOptions } from './tools.js';
export { runFunctionCalls } from './run.js';
export type { GeminiTurn, RunFunctionCallsOptions } from './run.js';
export type { CallProgress, ToolFilter, ToolSelector, ToolSource } from '@toolplane/adapter-kit';
export { withApproval } from '@toolplane/adapter-kit';
