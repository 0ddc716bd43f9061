import type { SchemaValidationResult } from '../validator.js';

/** Where and by which keyword a validation failed, without the messages (which may differ). */
export function errorsOf(
  result: SchemaValidationResult,
): readonly { path: string; keyword: string }[] {
  return result.valid ? [] : result.errors.map(({ path, keyword }) => ({ path, keyword }));
}
