export { CODE_MODE_DEFAULTS, createCodeMode } from './code-mode.js';
export type {
  CodeMode,
  CodeModeFilter,
  CodeModeOptions,
  CodeRunOptions,
  CodeRunResult,
  FoundTool,
} from './types.js';
export { CodeModeError } from './errors.js';
export type { CallStats, CodeModeErrorOptions } from './errors.js';
export { identifierOf, NO_NAMESPACE } from './names.js';
export type { ApiTool, LogEntry } from './protocol.js';
export { codeModeTools } from './code-tools.js';
export type { CodeModeTool } from './code-tools.js';
