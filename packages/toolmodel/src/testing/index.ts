export { errorCodeOf, rejectionCodeOf } from './error-code.js';
export { describeSchemaValidatorContract, TYPICAL_TOOL_SCHEMA } from './validator-contract.js';
