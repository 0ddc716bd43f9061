export { backendKey, validateBackend } from './backend.js';
export type {
  LocalBackend,
  McpBackend,
  ProviderBackend,
  ToolBackend,
  ToolBackendKind,
} from './backend.js';
export { pointerToken, rejectedWith, ToolError } from './errors.js';
export type {
  SchemaValidationError,
  ToolErrorCode,
  ToolErrorJson,
  ToolErrorOptions,
  ToolOperation,
} from './errors.js';
export {
  formatToolId,
  NAMESPACE_PATTERN,
  parseToolId,
  TOOL_NAME_PATTERN,
  toolId,
  VERSION_PATTERN,
} from './ids.js';
export type { ToolIdParts } from './ids.js';
export {
  areNormalTags,
  fromMcpJson,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  MCP_VERSION,
  normalizeTags,
  parseMcpTool,
  toMcpJson,
  validateTool,
} from './tool.js';
export type { FromMcpJsonOptions, JsonSchema, Tool } from './tool.js';
export { followSignal, raceAbort, throwIfAborted, whenAborted } from './abort.js';
export { commonJs } from './common-js.js';
export type { RaceAbortOptions } from './abort.js';
export { canonicalJson } from './canonical-json.js';
export { isPlainObject } from './guards.js';
export { jsonEqual } from './json-equal.js';
export { inexactInteger, inexactIntegerMessage, inexactIntegers } from './json-text.js';
export type { InexactIntegerMessageOptions } from './json-text.js';
export { isJsonData, jsonProblem, MAX_JSON_DEPTH } from './json-value.js';
export type { JsonProblemOptions, JsonValue } from './json-value.js';
export { canonicalResource } from './resource-uri.js';
export type { CanonicalResourceOptions } from './resource-uri.js';
export { DEFAULT_SEPARATOR, EXPOSED_NAME_PATTERN, NameTable, separatorProblem } from './names.js';
export type { NamedItem, NamingOptions } from './names.js';
export { didYouMean } from './suggest.js';
export {
  checkCount,
  checkDuration,
  countOr,
  MAX_TIMER_MS,
  optionKeys,
  refuseUnknownOptions,
} from './option-checks.js';
export type {
  CountCheck,
  DurationCheck,
  OptionCheckOptions,
  UnknownOptionsCheck,
} from './option-checks.js';
export type { SchemaValidationResult, SchemaValidator } from './validator.js';
export { SUBSCHEMA_KEYWORDS, subschemaKeywords } from './schema-keywords.js';
export type { SubschemaKeyword, SubschemaShape, SubschemaTarget } from './schema-keywords.js';
export { schemaDialect } from './schema-dialect.js';
export type { SchemaDialect } from './schema-dialect.js';
export { createValidator, DEFAULT_MAX_ERRORS } from './validator.js';
export type { ValidatorOptions } from './validator.js';
export {
  createSchemaValidator,
  falseSchemaError,
  stackOverflow,
  unresolvedRef,
  VALID,
} from './schema-validator.js';
export type { PreparedSchema, PrepareSchema } from './schema-validator.js';
export { linearPattern } from './linear-pattern.js';
export { isUrlFormat } from './url-format.js';
export type { LinearPattern } from './linear-pattern.js';
