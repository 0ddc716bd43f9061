// The suites third-party implementations run in their own vitest tests: importing this entry
// needs vitest, which the `@toolplane/toolmodel/testing` helpers do not.
export { describeSchemaValidatorContract } from './validator-contract.js';
