export { callThrough, listAll, passes } from './source.js';
export type { SourceCallOptions, ToolFilter, ToolSelector, ToolSource } from './source.js';
export { convertSchema } from './schema-conversion.js';
export type { ConvertedSchema } from './schema-conversion.js';
export { SCHEMA_RULES } from './schema-rules.js';
export type { ProviderSchemaRules, SchemaTarget } from './schema-rules.js';
export { checkSchema, checkToolName, TOOL_NAME_RULES } from './schema-check.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_OUTPUT_CHARS,
  outcomeText,
  parseArguments,
  runCalls,
} from './turn.js';
export type {
  CallOutcome,
  ResolvedCall,
  ResultPart,
  RunCallsOptions,
  ToolCallRequest,
} from './turn.js';
export { bindExposed, exposedOf, exposeTools } from './exposed.js';
export type { ExposedTool, ExposedTools, ExposeOptions } from './exposed.js';
