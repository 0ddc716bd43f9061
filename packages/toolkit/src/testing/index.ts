// Helpers that need no test runner; the vitest suites are in `@toolplane/toolkit/testing/vitest`.
export { runToolkit } from './run-toolkit.js';
export type { RunningToolkit } from './run-toolkit.js';
