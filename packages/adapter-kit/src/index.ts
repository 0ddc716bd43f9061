export { callThrough, listAll, passes } from './source.js';
export type { SourceCallOptions, ToolFilter, ToolSelector, ToolSource } from './source.js';
