// Helpers that need no test runner; the vitest suites are in `@toolplane/toolmodel/testing/vitest`.
export { errorCodeOf, errorMessageOf, rejectionCodeOf } from './error-code.js';
export { TYPICAL_TOOL_SCHEMA } from './typical-schema.js';
export { CANONICAL_RESOURCE_CASES } from './resource-cases.js';
export type { CanonicalResourceCase } from './resource-cases.js';
export { URL_CASES, URL_PARTS, URL_SHAPES, urlCharacterCases, urlLikeText } from './url-cases.js';
