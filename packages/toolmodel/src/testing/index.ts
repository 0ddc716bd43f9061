export { describeSchemaValidatorContract, TYPICAL_TOOL_SCHEMA } from './validator-contract.js';
