export { toAiSdkTools } from './tools.js';
export type { AiSdkTool } from './tools.js';
export type { AiSdkToolsOptions } from './tools-options.js';
export { DEFAULT_MAX_OUTPUT_CHARS, toModelOutput } from './results.js';
export type {
  AiSdkToolOutput,
  ContentBlock,
  ModelOutputOptions,
  ProgressOutput,
  ResultOutput,
  ToolResultOutput,
} from './results.js';
export type {
  SourceCallOptions,
  ToolFilter,
  ToolSelector,
  ToolSource,
} from '@toolplane/adapter-kit';
export { createAiSdkSamplingHandler } from './sampling.js';
export type { AiSdkSamplingOptions, ModelChooser, ModelPreferences } from './sampling.js';
export { createAiSdkDelegate, DEFAULT_AGENT_STEPS } from './delegate.js';
export type { AgentModelChooser, AgentModelRequest, AiSdkDelegateOptions } from './delegate.js';
