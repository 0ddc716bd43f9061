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

// Node 20 warns of a possible leak ("MaxListenersExceededWarning") when an 11th listener is
// added to one AbortSignal (later Node versions never warn for AbortSignal). A caller's signal
// often outlives many calls, and concurrent calls each listen to it: they share one listener
// here instead, so a signal carries one of ours however many calls wait on it.
interface Listeners {
  /** One entry per `whenAborted` call, so the same function may wait twice. */
  readonly entries: Set<{ readonly listener: () => void }>;
  /** The one listener on the signal, which calls every entry's. */
  readonly abort: () => void;
}

const listening = new WeakMap<AbortSignal, Listeners>();

const stopNothing = (): void => undefined;

function listenersOf(signal: AbortSignal): Listeners {
  let found = listening.get(signal);
  if (found === undefined) {
    const entries = new Set<{ readonly listener: () => void }>();
    const abort = (): void => {
      listening.delete(signal);
      for (const entry of entries) {
        try {
          entry.listener();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      entries.clear();
    };
    found = { entries, abort };
    listening.set(signal, found);
    signal.addEventListener('abort', abort, { once: true });
  }
  return found;
}

/**
 * Calls `listener` once when `signal` aborts (at once when it already has) and returns what
 * stops listening. However many listeners wait on one signal, it carries one `abort` listener
 * for all of them, removed when the last one stops: a signal shared by many concurrent calls
 * never makes Node 20 warn of a leak. A listener that throws does not keep the others from
 * running; its error is thrown again in a microtask, as an event listener's would be.
 */
export function whenAborted(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return stopNothing;
  }
  const listeners = listenersOf(signal);
  const entry = { listener };
  listeners.entries.add(entry);
  return () => {
    if (!listeners.entries.delete(entry) || listeners.entries.size > 0) return;
    if (listening.get(signal) !== listeners) return;
    listening.delete(signal);
    signal.removeEventListener('abort', listeners.abort);
  };
}

/**
 * An `AbortController` of its own that aborts, with the same reason, when `outer` does: the
 * caller's signal handed on with a reason of its own to stop (a timeout, a consumer gone).
 * `unlink` stops following `outer`; call it once the work is over, so a long-lived signal keeps
 * nothing of it (see {@link whenAborted}).
 */
export function followSignal(outer: AbortSignal | undefined): {
  readonly controller: AbortController;
  readonly unlink: () => void;
} {
  const controller = new AbortController();
  const unlink =
    outer === undefined
      ? stopNothing
      : whenAborted(outer, () => {
          controller.abort(outer.reason);
        });
  return { controller, unlink };
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
    const stop = whenAborted(signal, () => {
      reject(error(signal));
    });
    void work.finally(stop).then((value) => {
      if (signal.aborted) discard?.(value);
      else resolve(value);
    }, reject);
  });
}
