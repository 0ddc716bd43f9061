export { toAiSdkTools } from './tools.js';
export type { AiSdkTool, AiSdkToolsOptions } from './tools.js';
export { DEFAULT_MAX_OUTPUT_CHARS, toModelOutput } from './results.js';
export type {
  AiSdkToolOutput,
  ContentBlock,
  ModelOutputOptions,
  ProgressOutput,
  ResultOutput,
  ToolResultOutput,
} from './results.js';
export type { SourceCallOptions, ToolFilter, ToolSelector, ToolSource } from './source.js';
export { createAiSdkSamplingHandler } from './sampling.js';
export type { AiSdkSamplingOptions, ModelChooser, ModelPreferences } from './sampling.js';
