export { errorCodeOf, rejectionCodeOf } from './error-code.js';
export { describeSchemaValidatorContract, TYPICAL_TOOL_SCHEMA } from './validator-contract.js';
export { CANONICAL_RESOURCE_CASES } from './resource-cases.js';
export type { CanonicalResourceCase } from './resource-cases.js';
