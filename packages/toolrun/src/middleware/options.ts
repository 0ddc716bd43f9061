import { ToolError } from '@toolplane/toolmodel';

/** Throws `invalid_argument` unless `value` is a finite number above zero. */
export function checkPositive(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ToolError(
      'invalid_argument',
      `${what} must be a positive number, got ${String(value)}`,
    );
  }
}

/** Throws `invalid_argument` unless `value` is an integer of at least `min`. */
export function checkInteger(value: unknown, what: string, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ToolError(
      'invalid_argument',
      `${what} must be an integer of at least ${min}, got ${String(value)}`,
    );
  }
}
