export { openAIToolReport, toOpenAIResponsesTools, toOpenAITools } from './tools.js';
export type { OpenAIToolReport, OpenAIToolsOptions } from './tools.js';
export { runToolCalls } from './run.js';
export type { ChatTurn, FunctionCallOutput, ResponsesTurn, RunToolCallsOptions } from './run.js';
export type { CallProgress, ToolFilter, ToolSelector, ToolSource } from '@toolplane/adapter-kit';
export { withApproval } from '@toolplane/adapter-kit';
