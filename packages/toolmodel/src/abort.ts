import { ToolError } from './errors.js';

/** The error an aborted operation fails with unless the caller names its own. */
function cancelled(signal: AbortSignal): ToolError {
  return new ToolError('cancelled', 'the operation was cancelled', { cause: signal.reason });
}

/**
 * Throws when `signal` has aborted, so async work stops at its next step.
 *
 * @throws {ToolError} `cancelled`, with the signal's reason as `cause` (or what `error` makes).
 */
export function throwIfAborted(
  signal: AbortSignal | undefined,
  error: (signal: AbortSignal) => Error = cancelled,
): void {
  if (signal?.aborted === true) throw error(signal);
}

/** Options of {@link raceAbort}. */
export interface RaceAbortOptions<T> {
  /** The error to reject with (default: `cancelled`, with the signal's reason as `cause`). */
  readonly error?: (signal: AbortSignal) => Error;
  /** Gets a value `work` resolves with after the abort (a pooled connection to give back, say). */
  readonly discard?: (late: T) => void;
}

/**
 * Settles as `work` does, or rejects as soon as `signal` aborts (at once when it already has),
 * even if `work` never settles: for work that cannot be told to stop, such as a backend call or a
 * pool's `connect()`. A rejection of `work` passes through unchanged.
 *
 * @throws {ToolError} `cancelled` (or what `options.error` makes) when `signal` aborts first.
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal,
  options: RaceAbortOptions<T> = {},
): Promise<T> {
  const { error = cancelled, discard } = options;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(error(signal));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void work
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
      })
      .then((value) => {
        if (signal.aborted) discard?.(value);
        else resolve(value);
      }, reject);
  });
}
