import {
  checkCount,
  checkDuration,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
  whenAborted,
} from '@toolplane/toolmodel';
import { abortError } from '../errors.js';
import type { Middleware, ToolCall } from '../types.js';

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  readonly retries?: number;
  /** Base delay in milliseconds: the cap of the first retry's delay (default 100). */
  readonly minDelay?: number;
  /** Upper bound of any delay in milliseconds (default 5000). */
  readonly maxDelay?: number;
  /** Source of randomness in [0, 1) for the jitter (default `Math.random`). */
  readonly random?: () => number;
}

const KNOWN = optionKeys<RetryOptions>({
  retries: true,
  minDelay: true,
  maxDelay: true,
  random: true,
});
// Names other retry libraries use, and what they are here.
const INSTEAD = {
  attempts: '`retries` counts the retries after the first attempt',
  maxAttempts: '`retries` counts the retries after the first attempt',
  maxRetries: 'did you mean "retries"?',
  delay: '`minDelay` caps the first wait, doubled each retry up to `maxDelay`',
  baseDelay: 'did you mean "minDelay"?',
  initialDelay: 'did you mean "minDelay"?',
};

// Only failures that may pass on their own are retried; `validation`, `cancelled`,
// `rate_limited`, `circuit_open` and `stream_not_supported` would fail the same way again.
const TRANSIENT = new Set(['execution', 'timeout']);

function isTransient(error: unknown): boolean {
  return !ToolError.isInstance(error) || TRANSIENT.has(error.code);
}

/** True when repeating the call cannot do harm: the caller or the tool's annotations say so. */
function isRepeatable(call: ToolCall): boolean {
  const annotations = call.tool.annotations;
  return (
    call.idempotent || annotations?.readOnlyHint === true || annotations?.idempotentHint === true
  );
}

/** Options of {@link backoffDelay}; delays in milliseconds. */
export interface BackoffOptions {
  /** The cap of the first delay, doubled each attempt. */
  readonly minDelay: number;
  /** The largest cap. */
  readonly maxDelay: number;
  /** Where the jitter comes from (default `Math.random`), for tests. */
  readonly random?: () => number;
}

/**
 * Full-jitter backoff: a random delay below `min(maxDelay, minDelay * 2 ** attempt)`, for
 * {@link retry} and the toolkit's reconnecting connectors alike. The exponent stops at 30, so
 * thousands of attempts (a server down for a day) never make the product `0 * Infinity`.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const { minDelay, maxDelay, random = Math.random } = options;
  return random() * Math.min(maxDelay, minDelay * 2 ** Math.min(attempt, 30));
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortError(signal));
      return;
    }
    const timer = setTimeout(() => {
      stopWaiting?.();
      resolve();
    }, ms);
    const stopWaiting =
      signal === undefined
        ? undefined
        : whenAborted(signal, () => {
            clearTimeout(timer);
            reject(abortError(signal));
          });
  });
}

/**
 * Retries failed calls with exponential backoff and full jitter: before retry `n` (from 0) it
 * waits a random time below `min(maxDelay, minDelay * 2 ** n)`. Only calls that are safe to
 * repeat are retried: tools annotated `readOnlyHint` or `idempotentHint`, or calls run with
 * `{ idempotent: true }`. Only `execution` and `timeout` failures are retried; a stream that
 * already produced a chunk is not. The waits end at once when the call's signal aborts.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option, a negative or fractional
 * `retries`, or a delay that is not above 0 and at most `MAX_TIMER_MS`.
 */
export function retry(options: RetryOptions = {}): Middleware {
  refuseUnknownOptions(options, KNOWN, 'retry', { instead: INSTEAD });
  const retries = options.retries ?? 2;
  const minDelay = options.minDelay ?? 100;
  const maxDelay = options.maxDelay ?? 5000;
  const random = options.random ?? Math.random;
  checkCount(retries, 'retry({ retries })', { min: 0 });
  checkDuration(minDelay, 'retry({ minDelay })');
  checkDuration(maxDelay, 'retry({ maxDelay })');

  return (next) => async (call) => {
    if (retries === 0 || !isRepeatable(call)) return next(call);
    const seen = { chunk: false };
    const onChunk = call.onChunk;
    const attemptCall: ToolCall =
      onChunk === undefined
        ? call
        : {
            ...call,
            onChunk: (chunk) => {
              seen.chunk = true;
              onChunk(chunk);
            },
          };
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(attemptCall);
      } catch (error) {
        if (
          attempt >= retries ||
          seen.chunk ||
          call.signal?.aborted === true ||
          !isTransient(error)
        ) {
          throw error;
        }
      }
      await delay(backoffDelay(attempt, { minDelay, maxDelay, random }), call.signal);
    }
  };
}
