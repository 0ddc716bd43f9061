// Helpers that need no test runner; the vitest suites are in `@toolplane/toolmodel/testing/vitest`.
export { errorCodeOf, rejectionCodeOf } from './error-code.js';
export { TYPICAL_TOOL_SCHEMA } from './typical-schema.js';
