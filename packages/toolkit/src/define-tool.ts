import type { LocalHandlerContext } from '@toolplane/toolrun';
import {
  optionKeys,
  pointerToken,
  refuseUnknownOptions,
  ToolError,
  validateTool,
  type JsonSchema,
  type Tool,
} from '@toolplane/toolmodel';

/**
 * A schema from any library that implements Standard Schema with Standard JSON Schema
 * (zod 4, for one): it validates values and converts itself to JSON Schema.
 */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** What a Standard Schema's `validate` returns: the value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: readonly {
        readonly message: string;
        readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
      }[];
    };

/** A tool's input or output schema: a Standard JSON Schema (e.g. zod 4) or plain JSON Schema. */
export type SchemaInput = StandardJsonSchema | Record<string, unknown>;

/** The value a schema describes: typed for a Standard schema, `Record<string, unknown>` for JSON Schema. */
export type InferInput<S> =
  S extends StandardJsonSchema<unknown, infer Output> ? Output : Record<string, unknown>;

/**
 * What a caller passes for a schema: its input side when Standard, `Record<string, unknown>` for
 * JSON Schema.
 */
export type InferArguments<S> =
  S extends StandardJsonSchema<infer Input, unknown> ? Input : Record<string, unknown>;

/**
 * A tool's structured result as its output schema describes it: for a Standard schema its input
 * side (the runner checks the value against the JSON Schema, so no transform or default of the
 * schema has been applied to it), `Record<string, unknown>` for JSON Schema, `unknown` with none.
 */
export type InferStructured<S> = [S] extends [undefined]
  ? unknown
  : S extends StandardJsonSchema<infer Input, unknown>
    ? Input
    : Record<string, unknown>;

/** What a builtin tool's `run` receives besides its input. */
export type ToolContext = LocalHandlerContext;

/** The definition {@link defineTool} takes. */
export interface ToolDefinition<I extends SchemaInput, O extends SchemaInput | undefined> {
  /** The tool's name (1–128 characters of `A-Z a-z 0-9 _ - .`). */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The input schema: zod 4 (or any Standard JSON Schema) or a JSON Schema object. */
  readonly input: I;
  /** The output schema, when the tool returns structured content. */
  readonly output?: O;
  readonly annotations?: Tool['annotations'];
  readonly tags?: readonly string[];
  /** Does the work. A Standard schema's parsed value (defaults and transforms applied) is `input`. */
  readonly run: (input: InferInput<I>, context: ToolContext) => unknown;
}

/**
 * A tool defined in code: its MCP definition and the handler that runs it. `Args` and
 * `Structured` type `toolkit.call(tool, args)`: the arguments it takes and its result's
 * `structured` value.
 */
export interface DefinedTool<Args = unknown, Structured = unknown> {
  /** The tool, in the `builtin` namespace. */
  readonly tool: Tool;
  /** Runs the tool; validates Standard-schema input before calling `run`. */
  readonly handler: (args: unknown, context: ToolContext) => unknown;
  /** Types only, never set at run time: what `Args` and `Structured` are. */
  readonly '~types'?: { readonly args: Args; readonly structured: Structured } | undefined;
}

const TARGET = { target: 'draft-2020-12' } as const;

function isStandard(schema: unknown): schema is StandardJsonSchema {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    '~standard' in schema &&
    typeof (schema as StandardJsonSchema)['~standard'].validate === 'function'
  );
}

function toJsonSchema(schema: SchemaInput, io: 'input' | 'output', tool: string): JsonSchema {
  if (!isStandard(schema)) return schema;
  const converter = (schema as Partial<StandardJsonSchema>)['~standard']?.jsonSchema;
  if (converter === undefined) {
    throw new ToolError(
      'invalid_tool',
      `the ${io} schema of tool "${tool}" cannot be converted to JSON Schema: its library does not implement Standard JSON Schema (zod ≥ 4.2 does); pass a JSON Schema object instead`,
    );
  }
  try {
    return converter[io](TARGET);
  } catch (error) {
    throw new ToolError(
      'invalid_tool',
      `the ${io} schema of tool "${tool}" cannot be expressed as JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function formatPath(
  path: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined,
): string {
  if (path === undefined || path.length === 0) return '';
  return path
    .map((part) => `/${pointerToken(String(typeof part === 'object' ? part.key : part))}`)
    .join('');
}

const DEFINITION_KEYS = optionKeys<ToolDefinition<SchemaInput, SchemaInput>>({
  name: true,
  title: true,
  description: true,
  input: true,
  output: true,
  annotations: true,
  tags: true,
  run: true,
});

/**
 * Defines a builtin tool: a name, a description, input (and optional output) schemas as zod 4
 * (or any Standard JSON Schema) or plain JSON Schema, and `run`, which receives typed input.
 * Standard schemas are converted to JSON Schema 2020-12 for the tool's MCP definition, and also
 * validate (and transform) the input before `run` sees it.
 *
 * @throws {ToolError} `invalid_tool` for a key it does not take, or when the name or a schema is
 * unusable.
 *
 * @example
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Add two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => a + b,
 * });
 */
export function defineTool<I extends SchemaInput, O extends SchemaInput | undefined = undefined>(
  definition: ToolDefinition<I, O>,
): DefinedTool<InferArguments<I>, InferStructured<O>> {
  // A misspelt `annotations` would drop `destructiveHint`, and with it an approval's question.
  refuseUnknownOptions(definition, DEFINITION_KEYS, 'defineTool', { code: 'invalid_tool' });
  const { name, input, output, run } = definition;
  const tool: Tool = {
    name,
    description: definition.description,
    inputSchema: toJsonSchema(input, 'input', name) as Tool['inputSchema'],
    namespace: 'builtin',
  };
  if (definition.title !== undefined) tool.title = definition.title;
  if (output !== undefined)
    tool.outputSchema = toJsonSchema(output, 'output', name) as Tool['outputSchema'];
  if (definition.annotations !== undefined) tool.annotations = { ...definition.annotations };
  if (definition.tags !== undefined) tool.tags = [...definition.tags];
  validateTool(tool);
  if (typeof run !== 'function') {
    throw new ToolError('invalid_tool', `tool "${name}" needs a run function`);
  }
  if (!isStandard(input)) {
    return { tool, handler: (args, context) => run(args as InferInput<I>, context) };
  }
  const standard = input['~standard'];
  const proceed = (parsed: StandardResult<unknown>, context: ToolContext): unknown => {
    if (parsed.issues !== undefined) throw invalidArguments(name, parsed.issues);
    return run(parsed.value as InferInput<I>, context);
  };
  return {
    tool,
    // Synchronous when the schema validates synchronously, so a generator's stream is not
    // hidden behind a promise.
    handler: (args, context) => {
      const parsed = standard.validate(args);
      return parsed instanceof Promise
        ? parsed.then((result) => proceed(result, context))
        : proceed(parsed, context);
    },
  };
}

function invalidArguments(
  name: string,
  issues: Exclude<StandardResult<unknown>['issues'], undefined>,
): ToolError {
  const errors = issues.map((issue) => ({
    path: formatPath(issue.path),
    keyword: 'schema',
    message: issue.message,
  }));
  return new ToolError(
    'validation',
    `invalid arguments for tool "builtin:${name}": ${errors.map((e) => `${e.path || '(root)'}: ${e.message}`).join('; ')}`,
    { toolId: `builtin:${name}`, op: 'validate_input', errors },
  );
}
