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

/**
 * Throws `invalid_argument` unless `options` (of `run`, `runStream` or `runChain`) is absent or
 * an object whose `signal` is absent or an `AbortSignal` and whose `onProgress` is absent or a
 * function: a wrong one would otherwise fail deep inside, or be ignored and never cancel.
 */
export function checkRunOptions(options: unknown, method: string): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ToolError('invalid_argument', `${method} options must be an object`);
  }
  const { signal, onProgress } = options as { signal?: unknown; onProgress?: unknown };
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new ToolError('invalid_argument', `${method} options.signal must be an AbortSignal`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new ToolError('invalid_argument', `${method} options.onProgress must be a function`);
  }
}

// By shape, so a signal of another realm or a polyfill passes too.
function isAbortSignal(value: unknown): boolean {
  const signal = value as Partial<AbortSignal> | null;
  return (
    typeof value === 'object' &&
    signal !== null &&
    typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function' &&
    typeof signal.removeEventListener === 'function'
  );
}
