export { approvalPredicate, withApproval } from './approval.js';
export { callThrough, checkArguments, checkSource, listAll, passes } from './source.js';
export type { SourceCallOptions, ToolFilter, ToolSelector, ToolSource } from './source.js';
export { nameTools } from './names.js';
export type { NamedTool, NameToolsOptions } from './names.js';
export { asToolError, fromError, fromRun, jsonResult, upstreamErrorOf } from './results.js';
export type { AdapterToolResult, ContentBlock } from './results.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the old name, kept one minor
export type { ToolResult } from './results.js';
export {
  DEFAULT_MAX_OUTPUT_CHARS,
  leftOutNote,
  maxOutputCharsOf,
  mediaOf,
  OutputBudget,
  textOf,
} from './budget.js';
export type { Media } from './budget.js';
export {
  callArgumentsOf,
  callTool,
  describeTool,
  isExposed,
  parseSearchInput,
  prepareCall,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MODE_TOOLS,
  searchResultOf,
  searchTools,
  toolNotFound,
} from './search.js';
export type { PreparedCall, SearchInput, SearchToolDefinition } from './search.js';
export { convertSchema } from './schema-conversion.js';
export type { ConvertedSchema } from './schema-conversion.js';
export { SCHEMA_RULES } from './schema-rules.js';
export type { ProviderSchemaRules, SchemaTarget } from './schema-rules.js';
export { checkSchema, checkToolName, TOOL_NAME_RULES } from './schema-check.js';
export { DEFAULT_CONCURRENCY, parseArguments, runCalls } from './turn.js';
export type {
  CallProgress,
  CallTargets,
  LocalRun,
  ResolvedCall,
  RunCallsOptions,
  ToolCallRequest,
} from './turn.js';
export { acceptedPart, outcomeText } from './outcomes.js';
export type { CallOutcome, ResultPart } from './outcomes.js';
export { bindExposed, exposedOf, exposeTools } from './exposed.js';
export {
  checkAdapterCall,
  checkAdapterOptions,
  EXPOSE_OPTION_KEYS,
  joinOptionKeys,
  NAME_TOOLS_OPTION_KEYS,
  RUN_CALLS_OPTION_KEYS,
} from './option-checks.js';
export type { ExposedTool, ExposedTools, ExposeOptions } from './exposed.js';
export { searchModeTools } from './search-mode.js';
export type { SearchModeTool } from './search-mode.js';
export { CODE_MODE_TOOLS, codeModeTools, requireCodeMode } from './code-mode.js';
export type {
  CodeModeLog,
  CodeModeRunner,
  CodeModeTool,
  CodeModeToolDefinition,
} from './code-mode.js';
