import { AuthError } from './errors.js';

/**
 * A failure to reach the authorization server, kept as the answer for `backoffMs` so that a flood
 * of made-up tokens costs a failing issuer nothing: every request meanwhile is refused at once
 * with it, and told (`AuthError.retryAfterSec`) how much of the backoff is left. Used for the
 * issuer's metadata and for its key set.
 */
export class FailureBackoff {
  readonly #backoffMs: number;
  #failed: { readonly at: number; readonly error: unknown } | undefined;

  constructor(backoffMs: number) {
    this.#backoffMs = backoffMs;
  }

  /** @throws the failure kept, while its backoff lasts. */
  throwIfHeld(): void {
    const failed = this.#failed;
    if (failed === undefined) return;
    const left = failed.at + this.#backoffMs - Date.now();
    if (left > 0) throw refusedFor(failed.error, left);
  }

  /**
   * Keeps `error` as the answer from now on (`held: false`: not at all, for a failure that says
   * nothing of the server, such as a start that was stopped), and returns it as the request that
   * met it is refused.
   */
  fail(error: unknown, held = true): Error {
    this.#failed = held ? { at: Date.now(), error } : undefined;
    return refusedFor(error, this.#backoffMs);
  }

  /** Forgets the failure: the server answered. */
  succeeded(): void {
    this.#failed = undefined;
  }
}

/** `error` as a request is refused with it: an `unavailable` one says when to try again. */
function refusedFor(error: unknown, leftMs: number): Error {
  if (!AuthError.isAuthError(error) || error.reason !== 'unavailable') {
    return error instanceof Error ? error : new Error(String(error));
  }
  return new AuthError('unavailable', error.message, {
    cause: error.cause,
    retryAfterSec: Math.max(1, Math.ceil(leftMs / 1_000)),
  });
}
