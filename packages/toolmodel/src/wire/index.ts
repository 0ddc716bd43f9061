export { answerIdOf, CONNECTION_CLOSED, isRequestId } from './json-rpc.js';
export type { RequestId } from './json-rpc.js';
export { limitBody } from './limit-body.js';
export type { LimitBodyOptions } from './limit-body.js';
export { NdjsonLineSplitter } from './ndjson-lines.js';
export type { NdjsonLineSplitterOptions, SkippedLine } from './ndjson-lines.js';
export { MODERN_PROTOCOL_VERSION } from './protocol-revisions.js';
