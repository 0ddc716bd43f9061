import { ToolError } from '@toolplane/toolmodel';

/**
 * `value` when it is a finite number from `min` to `max`, for checking numeric options.
 *
 * @throws {ToolError} `invalid_argument` naming the option otherwise.
 */
export function checkNumber(value: number, name: string, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ToolError(
      'invalid_argument',
      `${name} must be a number from ${min} to ${max}, got ${value}`,
    );
  }
  return value;
}
