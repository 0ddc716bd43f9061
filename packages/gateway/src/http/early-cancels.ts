import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

/** How long a cancellation waits for its request (it is on its way, in another HTTP POST). */
const WAIT_MS = 10_000;
/** Most cancellations kept waiting at once; the oldest makes room. */
const MAX_WAITING = 256;

/**
 * Cancellations that overtook their requests. Over Streamable HTTP (2025-11-25) a request and
 * its `notifications/cancelled` are two POSTs, handled side by side: a cancel sent at once can be
 * read first, find nothing to cancel, and be dropped; its request then runs to its end (at an
 * upstream, for nobody) and its POST waits for an answer that a cancelled request never gets.
 * A cancel that names no request waiting for its answer waits here a while for its request, and
 * is handed on right after it. Bounded in count and time, read with no timer.
 */
export class EarlyCancels {
  readonly #waiting = new Map<
    RequestId,
    { readonly at: number; readonly cancel: JSONRPCMessage }
  >();

  /** Keeps `cancel`, the cancellation of `id`, which no request waiting for its answer holds. */
  note(id: RequestId, cancel: JSONRPCMessage): void {
    this.#waiting.delete(id);
    this.#waiting.set(id, { at: Date.now(), cancel });
    if (this.#waiting.size > MAX_WAITING) {
      const oldest = this.#waiting.keys().next().value;
      if (oldest !== undefined) this.#waiting.delete(oldest);
    }
  }

  /**
   * The cancellation kept for `id`, taken: `undefined` when none is, or when it has waited too
   * long (a request ID may be used again once its request is over).
   */
  take(id: RequestId): JSONRPCMessage | undefined {
    if (this.#waiting.size === 0) return undefined;
    const kept = this.#waiting.get(id);
    if (kept === undefined) return undefined;
    this.#waiting.delete(id);
    return Date.now() - kept.at <= WAIT_MS ? kept.cancel : undefined;
  }
}
