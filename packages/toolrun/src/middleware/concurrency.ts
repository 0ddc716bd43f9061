import { checkCount, optionKeys, refuseUnknownOptions, whenAborted } from '@toolplane/toolmodel';
import { abortError } from '../errors.js';
import type { Middleware, ToolCall } from '../types.js';

/** Options of {@link concurrency}. */
export interface ConcurrencyOptions {
  /** Calls allowed to run at once. */
  readonly max: number;
  /** Limit per key (e.g. `(call) => call.toolId`); default one limit for all calls. */
  readonly key?: (call: ToolCall) => string;
}

interface Slot {
  running: number;
  readonly waiting: (() => void)[];
}

const KNOWN = optionKeys<ConcurrencyOptions>({ max: true, key: true });

/**
 * Runs at most `max` calls at once (overall, or per key); later calls wait in arrival order.
 * A waiting call whose signal aborts leaves the queue at once with `cancelled`.
 *
 * p-limit has no way to drop one aborted waiter, so this is a small semaphore of its own.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option, or when `max` is not a positive
 * integer.
 */
export function concurrency(options: ConcurrencyOptions): Middleware {
  refuseUnknownOptions(options, KNOWN, 'concurrency', {
    instead: { limit: 'did you mean "max"?', concurrency: 'did you mean "max"?' },
  });
  const { max } = options;
  checkCount(max, 'concurrency({ max })');
  const keyOf = options.key;
  const slots = new Map<string, Slot>();

  const slotOf = (id: string): Slot => {
    let slot = slots.get(id);
    if (slot === undefined) {
      slot = { running: 0, waiting: [] };
      slots.set(id, slot);
    }
    return slot;
  };

  const acquire = (slot: Slot, call: ToolCall): Promise<void> | undefined => {
    if (slot.running < max) {
      slot.running++;
      return undefined;
    }
    const signal = call.signal;
    if (signal?.aborted === true) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        stopWaiting?.();
        resolve();
      };
      const stopWaiting =
        signal === undefined
          ? undefined
          : whenAborted(signal, () => {
              const at = slot.waiting.indexOf(grant);
              if (at >= 0) slot.waiting.splice(at, 1);
              reject(abortError(signal));
            });
      slot.waiting.push(grant);
    });
  };

  const release = (slot: Slot, id: string): void => {
    // The slot passes straight to the next waiter, so `running` only drops when nobody waits.
    const grant = slot.waiting.shift();
    if (grant !== undefined) grant();
    else if (--slot.running === 0) slots.delete(id);
  };

  return (next) => async (call) => {
    const id = keyOf === undefined ? '' : keyOf(call);
    const slot = slotOf(id);
    const waiting = acquire(slot, call);
    if (waiting !== undefined) await waiting;
    try {
      return await next(call);
    } finally {
      release(slot, id);
    }
  };
}
