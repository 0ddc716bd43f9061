import { ToolError, type SchemaValidationError, type ToolOperation } from './errors.js';
import { toolId } from './ids.js';
import { subschemaKeywords } from './schema-keywords.js';
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

/** Validates values against one prepared schema. */
export type PreparedSchema = (value: unknown) => SchemaValidationResult;

/**
 * Turns one schema object into a {@link PreparedSchema}, e.g. by compiling it. It may throw; a
 * `ToolError` is kept as is, anything else becomes `invalid_schema`.
 */
export type PrepareSchema = (schema: Record<string, unknown>) => PreparedSchema;

/** The result every valid value shares. */
export const VALID: SchemaValidationResult = Object.freeze({ valid: true });

const FALSE_ROOT: SchemaValidationResult = Object.freeze({
  valid: false,
  errors: [{ path: '', keyword: 'false', message: 'no value is allowed: the schema is `false`' }],
});

/**
 * Builds a {@link SchemaValidator} from a `prepare` function, which is all a validator library
 * has to supply: boolean schemas, preparing each schema object once (cached by identity, a
 * failure too, so a bad schema fails fast every time) and the tool helpers come with it. Both
 * toolplane validators are built this way.
 */
export function createSchemaValidator(prepare: PrepareSchema): SchemaValidator {
  const cache = new WeakMap<object, PreparedSchema | ToolError>();
  const validate = (schema: JsonSchema, value: unknown): SchemaValidationResult => {
    if (schema === true) return VALID;
    if (schema === false) return FALSE_ROOT;
    let prepared = cache.get(schema);
    if (prepared === undefined) {
      // Checked only on a schema's first use: a cached one is an object already.
      const given: unknown = schema;
      if (typeof given !== 'object' || given === null) {
        throw new ToolError(
          'invalid_schema',
          `a schema is an object or a boolean, got ${given === null ? 'null' : typeof given}`,
        );
      }
      prepared = tryPrepare(prepare, schema);
      cache.set(schema, prepared);
    }
    if (prepared instanceof ToolError) throw prepared;
    return prepared(value);
  };
  return {
    validate,
    validateInput: (tool, args) =>
      forTool(checkTool(tool), 'validate_input', () => validate(tool.inputSchema, args)),
    validateOutput: (tool, value) =>
      checkTool(tool).outputSchema === undefined
        ? VALID
        : forTool(tool, 'validate_output', () => validate(tool.outputSchema as JsonSchema, value)),
  };
}

/** `tool`, when it is an object. @throws {ToolError} `invalid_tool` otherwise. */
function checkTool(tool: Tool): Tool {
  if (typeof tool === 'object' && (tool as Tool | null) !== null) return tool;
  throw new ToolError(
    'invalid_tool',
    `invalid tool: expected an object, got ${(tool as unknown) === null ? 'null' : typeof tool}`,
  );
}

function tryPrepare(
  prepare: PrepareSchema,
  schema: Record<string, unknown>,
): PreparedSchema | ToolError {
  try {
    return prepare(schema);
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    return (
      stackOverflow(error) ??
      new ToolError('invalid_schema', `the schema cannot be used: ${firstLine(error)}`, {
        cause: error,
      })
    );
  }
}

/**
 * The `invalid_schema` error for a validator that ran out of stack, or `undefined` when `error`
 * is something else.
 */
export function stackOverflow(error: unknown): ToolError | undefined {
  if (!(error instanceof RangeError)) return undefined;
  return new ToolError(
    'invalid_schema',
    'validation exceeded the call stack: the schema refers to itself without descending into the value (e.g. {"$ref": "#"}), or schema and value are nested too deeply; break the cycle or flatten the schema',
    { cause: error },
  );
}

/** The `invalid_schema` error for a `$ref` that does not resolve inside its schema. */
export function unresolvedRef(ref: unknown, cause?: unknown): ToolError {
  return new ToolError(
    'invalid_schema',
    `$ref ${JSON.stringify(ref)} does not resolve inside the schema, and external references are never fetched; copy the referenced schema under "$defs" and refer to it as "#/$defs/<name>"`,
    cause === undefined ? {} : { cause },
  );
}

// A `false` subschema under these refuses a property, or an item, rather than the whole value.
const PROPERTY_KEYWORDS = subschemaKeywords(({ target }) => target === 'property');
const ITEM_KEYWORDS = subschemaKeywords(({ target }) => target === 'item');

/**
 * Names the rejection of a value by a nested `false` schema after the keyword that holds it:
 * `falseSchemaError('/properties/x', '/x')` says property "x" is not allowed.
 *
 * @param schemaPath - JSON Pointer of the `false` subschema within its schema.
 * @param path - JSON Pointer of the rejected value.
 */
export function falseSchemaError(schemaPath: string, path: string): SchemaValidationError {
  const segments = schemaPath.split('/');
  const parent = segments.at(-2) ?? '';
  const last = segments.at(-1) ?? '';
  // Below a map or an array the last segment is a property name or an index, not a keyword.
  const holder =
    parent === 'properties' || parent === 'patternProperties' || /^\d+$/.test(last) ? parent : last;
  const name = path
    .slice(path.lastIndexOf('/') + 1)
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');
  if (PROPERTY_KEYWORDS.has(holder)) {
    return { path, keyword: holder, message: `property ${JSON.stringify(name)} is not allowed` };
  }
  if (ITEM_KEYWORDS.has(holder)) {
    return { path, keyword: holder, message: `no item is allowed at index ${name}` };
  }
  return { path, keyword: 'false', message: 'no value is allowed here: the schema is `false`' };
}

// Names the tool in a schema failure, so the error says which tool's schema to fix.
function forTool(
  tool: Tool,
  op: ToolOperation,
  check: () => SchemaValidationResult,
): SchemaValidationResult {
  try {
    return check();
  } catch (error) {
    if (!ToolError.isInstance(error)) throw error;
    let id: string;
    try {
      id = toolId(tool);
    } catch {
      id = tool.name;
    }
    const what = op === 'validate_input' ? 'arguments' : 'result';
    throw new ToolError(
      error.code,
      `cannot validate the ${what} of tool "${id}": ${error.message}`,
      {
        cause: error,
        toolId: id,
        op,
      },
    );
  }
}

function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n', 1)[0] ?? error.name) : String(error);
}
