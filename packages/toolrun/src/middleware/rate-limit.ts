import {
  backendKey,
  checkCount,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import type { Middleware, ToolCall } from '../types.js';
import { checkPositive } from './options.js';
import { TokenBuckets } from './token-buckets.js';

/** What a {@link rateLimit} counts calls by. */
export type RateLimitKey = 'tool' | 'backend' | ((call: ToolCall) => string);

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Calls allowed per `interval` (also the burst size). */
  readonly limit: number;
  /** The window in milliseconds. */
  readonly interval: number;
  /** Count per tool ID (default), per backend, or per a key of your own. */
  readonly key?: RateLimitKey;
  /** Clock in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

const KNOWN = optionKeys<RateLimitOptions>({ limit: true, interval: true, key: true, now: true });
// Names other rate limiters use, and what they are here.
const INSTEAD = {
  max: '`limit` calls per `interval` milliseconds',
  perSecond: 'give `limit` calls per `interval: 1000`',
  perMinute: 'give `limit` calls per `interval: 60_000`',
  windowMs: 'did you mean "interval"?',
};

/**
 * Limits calls to `limit` per `interval` milliseconds, per tool or per backend, with a token
 * bucket (bursts up to `limit`, refilled evenly). A call over the limit fails at once with
 * `rate_limited`; it is not queued. Only keys used within the last `interval` are held, so keys
 * of your own (per user, per session) cost nothing once idle.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option or a non-positive `limit` or
 * `interval`.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  refuseUnknownOptions(options, KNOWN, 'rateLimit', { instead: INSTEAD });
  const { limit, interval } = options;
  checkCount(limit, 'rateLimit({ limit })');
  checkPositive(interval, 'rateLimit({ interval })');
  const now = options.now ?? Date.now;
  const key = options.key ?? 'tool';
  const keyOf =
    key === 'tool'
      ? (call: ToolCall) => call.toolId
      : key === 'backend'
        ? (call: ToolCall) => backendKey(call.backend)
        : key;
  const buckets = new TokenBuckets(limit, interval);

  return (next) => (call) => {
    const id = keyOf(call);
    const wait = buckets.take(id, now());
    if (wait > 0) {
      return Promise.reject(
        new ToolError(
          'rate_limited',
          `tool "${call.toolId}" is over its rate limit of ${limit} calls per ${interval} ms (key "${id}"); retry in ${wait} ms`,
          { toolId: call.toolId, backend: call.backend, op: 'execute' },
        ),
      );
    }
    return next(call);
  };
}
