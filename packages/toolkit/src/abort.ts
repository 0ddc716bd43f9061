import { ToolError } from '@toolplane/toolmodel';

/**
 * Throws when `signal` has aborted, so async work stops at its next step.
 *
 * @throws {ToolError} `cancelled`, with the signal's reason as `cause`.
 * @internal
 */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    throw new ToolError('cancelled', 'the operation was cancelled', { cause: signal.reason });
  }
}
