// A call ended on purpose because its client's retry runs it again, possibly on another
// instance: not a cancellation by anyone, and not a failure. The gateway aborts a call's signal
// with it; the approval middleware, the dashboard's live log and the gateway's metrics read it,
// so every layer counts such a call the same way (`input_required`).

const marker = Symbol.for('@toolplane/CallHandedOn');

/**
 * The reason a call's `signal` aborts with when the call is ended because the answer to its
 * question (an `input_required` round) goes to a retry that runs the call again from the start,
 * on whichever gateway instance it reaches. Recognise it with {@link handedOn}.
 */
export class CallHandedOn extends Error {
  override name = 'CallHandedOn';

  /** True for any `CallHandedOn`, including one created by another copy of this package. */
  static isInstance(value: unknown): value is CallHandedOn {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[marker] === true
    );
  }
}

Object.defineProperty(CallHandedOn.prototype, marker, { value: true });

/** The outcome a call ended by {@link CallHandedOn} is counted with, in metrics and live logs. */
export const HANDED_ON_OUTCOME = 'input_required';

/** Whether `signal` ended its call for the call's retry to run it again ({@link CallHandedOn}). */
export function handedOn(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && CallHandedOn.isInstance(signal.reason);
}
