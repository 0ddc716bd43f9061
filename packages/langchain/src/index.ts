export { toLangChainTools } from './tools.js';
export type { LangChainToolsOptions } from './tools-options.js';
export { PROGRESS_EVENT, ToolplaneTool } from './tool.js';
export type { ToolplaneToolFields, ToolProgress, ToolRun } from './tool.js';
export { DEFAULT_MAX_OUTPUT_CHARS, toLangChainResult, toMessageContent } from './results.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, kept one minor
export { fromRun } from './results.js';
export type {
  ContentBlock,
  MessageBlock,
  MessageContentOptions,
  ToolplaneArtifact,
} from './results.js';
export type {
  SourceCallOptions,
  ToolFilter,
  ToolSelector,
  ToolSource,
} from '@toolplane/adapter-kit';
export { withApproval } from '@toolplane/adapter-kit';
