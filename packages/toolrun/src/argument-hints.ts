import { didYouMean, type SchemaValidationError, type Tool } from '@toolplane/toolmodel';

const UNKNOWN_PROPERTY = new Set(['additionalProperties', 'unevaluatedProperties']);

/**
 * `errors` with a "did you mean" added to each top-level argument the tool's input schema does not
 * allow, when one of the schema's property names is a slip of the finger away (`monts` → `months`):
 * a misspelt optional argument is otherwise refused with no word of what was meant.
 */
export function withArgumentHints(
  tool: Tool,
  errors: readonly SchemaValidationError[],
): readonly SchemaValidationError[] {
  const properties = tool.inputSchema.properties;
  if (properties === undefined || !errors.some((e) => UNKNOWN_PROPERTY.has(e.keyword))) {
    return errors;
  }
  const known = Object.keys(properties);
  return errors.map((error) => {
    // Only a top-level argument: "/name", with no further "/" in it.
    if (!UNKNOWN_PROPERTY.has(error.keyword) || error.path.lastIndexOf('/') !== 0) return error;
    const name = error.path.slice(1).replaceAll('~1', '/').replaceAll('~0', '~');
    const near = didYouMean(name, known);
    return near === undefined || near === name
      ? error
      : { ...error, message: `${error.message}; did you mean "${near}"?` };
  });
}
