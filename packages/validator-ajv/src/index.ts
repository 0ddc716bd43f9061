export { createAjvValidator } from './ajv-validator.js';
export type { AjvValidatorOptions } from './ajv-validator.js';
