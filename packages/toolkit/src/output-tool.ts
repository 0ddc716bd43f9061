import { defineTool, type DefinedTool, type SchemaInput } from './define-tool.js';

/** Tells a model how to finish with {@link createOutputTool}'s tool instead of free text. */
export const OUTPUT_TOOL_INSTRUCTION =
  'When you have the final answer, call the submit_output tool once with it as the arguments, ' +
  'matching its input schema exactly. Do not give the answer as plain text.';

/**
 * A `submit_output` tool whose input schema is the answer's schema: a model that must answer in
 * a given shape calls it, and the validated arguments are the answer. Pair it with
 * {@link OUTPUT_TOOL_INSTRUCTION}.
 *
 * @throws {ToolError} `invalid_tool` when `schema` is not an object schema.
 */
export function createOutputTool(schema: SchemaInput): DefinedTool {
  return defineTool({
    name: 'submit_output',
    description: 'Submit the final answer. Its arguments are the answer, in the required shape.',
    input: schema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: (input) => input,
  });
}
