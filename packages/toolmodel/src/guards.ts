/**
 * Whether `value` is an object as JSON has them: not `null`, not an array. Parsed JSON, tool
 * arguments, `_meta` and schema nodes are told apart with it in every layer.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
