import type { SchemaValidationError } from './errors.js';
import type { JsonSchema, Tool } from './tool.js';

/** The outcome of validating one value against one schema. */
export type SchemaValidationResult =
  | { readonly valid: true }
  | { readonly valid: false; readonly errors: readonly SchemaValidationError[] };

/**
 * Validates values against JSON Schemas. Implementations prepare each distinct schema once and
 * reuse it; see {@link createValidator} for the default.
 */
export interface SchemaValidator {
  /**
   * Validates `value` against `schema`.
   *
   * @throws {ToolError} `unsupported_schema` for a dialect other than 2020-12 or draft-07;
   * `invalid_schema` for a schema that cannot be used (e.g. an external `$ref`).
   */
  validate(schema: JsonSchema, value: unknown): SchemaValidationResult;
  /** Validates tool-call arguments against `tool.inputSchema`. */
  validateInput(tool: Tool, args: unknown): SchemaValidationResult;
  /** Validates a tool result against `tool.outputSchema`; valid when the tool has none. */
  validateOutput(tool: Tool, value: unknown): SchemaValidationResult;
}

// IMPLEMENTATION: createValidator() goes here (helper).
