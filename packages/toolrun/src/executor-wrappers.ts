import {
  checkCount,
  checkDuration,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
  whenAborted,
  type ToolErrorCode,
} from '@toolplane/toolmodel';
import { abortError } from './errors.js';
import { REDACTED } from './middleware/audit.js';
import { checkPositive } from './middleware/options.js';
import { TokenBuckets } from './middleware/token-buckets.js';
import {
  failedResult,
  type ToolExecutor,
  type ToolInvocation,
  type ToolInvocationContext,
  type ToolInvocationResult,
} from './tool-executor.js';

// The wrappers here are the runner middleware (timeout, rateLimit, audit) for the MPLP facade:
// they take any ToolExecutor, keep its never-rejects contract, and report failures as results.

/** Calls `executor`, turning a rejection (a foreign executor breaking the contract) into a result. */
async function settle(
  executor: ToolExecutor,
  invocation: ToolInvocation,
): Promise<ToolInvocationResult> {
  const started = performance.now();
  try {
    return await executor.invoke(invocation);
  } catch (error) {
    return failedResult(invocation.toolName, error, started, 'execution');
  }
}

/** `result` with `metadata.duration` measured from `started`, so a wrapper's own wait counts. */
function timed(result: ToolInvocationResult, started: number): ToolInvocationResult {
  return { ...result, metadata: { ...result.metadata, duration: performance.now() - started } };
}

function checkExecutor(executor: unknown, what: string): void {
  if (typeof (executor as ToolExecutor | undefined)?.invoke !== 'function') {
    throw new ToolError(
      'invalid_argument',
      `${what}: the first argument must be a ToolExecutor (an object with invoke())`,
    );
  }
}

/**
 * Fails an invocation that takes longer than `ms` milliseconds with `errorCode: 'timeout'`,
 * and aborts the signal the wrapped executor sees (an {@link InMemoryTool} gets it as
 * `options.signal`, a runner passes it to the backend). The caller's own signal still cancels
 * the invocation, resolved at once as `cancelled`, even when the tool ignores its signal.
 *
 * @throws {ToolError} `invalid_argument` when `executor` is not a `ToolExecutor` or `ms` is not
 * above 0 and at most `MAX_TIMER_MS` (a timer set longer fires at once).
 */
export function withTimeout(executor: ToolExecutor, ms: number): ToolExecutor {
  checkExecutor(executor, 'withTimeout');
  checkDuration(ms, 'withTimeout(executor, ms)');
  return {
    invoke(invocation) {
      const started = performance.now();
      const { toolName, signal: outer } = invocation;
      const controller = new AbortController();
      return new Promise<ToolInvocationResult>((resolve) => {
        const stop = (): void => {
          resolve(
            failedResult(
              toolName,
              abortError(controller.signal, { toolId: toolName }),
              started,
              'cancelled',
            ),
          );
        };
        const forward = (): void => {
          controller.abort(outer?.reason);
        };
        const timer = setTimeout(() => {
          controller.abort(
            new ToolError(
              'timeout',
              `tool "${toolName}" did not finish within ${ms} ms; raise the timeout or make the tool faster`,
              { toolId: toolName, op: 'execute' },
            ),
          );
        }, ms);
        controller.signal.addEventListener('abort', stop, { once: true });
        const stopForwarding = outer === undefined ? undefined : whenAborted(outer, forward);
        void settle(executor, { ...invocation, signal: controller.signal })
          .then((result) => {
            resolve(timed(result, started));
          })
          .finally(() => {
            clearTimeout(timer);
            stopForwarding?.();
            controller.signal.removeEventListener('abort', stop);
          });
      });
    },
  };
}

/** What a {@link withRateLimit} counts invocations by: per tool name (default), or a key of your own. */
export type ExecutorRateLimitKey = 'tool' | ((invocation: ToolInvocation) => string);

/** Options of {@link withRateLimit}. */
export interface ExecutorRateLimitOptions {
  /** Invocations allowed per `interval` (also the burst size). */
  readonly limit: number;
  /** The window in milliseconds. */
  readonly interval: number;
  /** Count per tool name (default) or per a key of your own, e.g. `(i) => i.context?.userId ?? ''`. */
  readonly key?: ExecutorRateLimitKey;
  /** Clock in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

const RATE_LIMIT_KEYS = optionKeys<ExecutorRateLimitOptions>({
  limit: true,
  interval: true,
  key: true,
  now: true,
});

/**
 * Limits invocations to `limit` per `interval` milliseconds, per tool name or per a key of your
 * own, with the runner's token buckets ({@link rateLimit}): bursts up to `limit`, refilled
 * evenly. An invocation over the limit resolves at once with `errorCode: 'rate_limited'`
 * without reaching `executor`; it is not queued.
 *
 * @throws {ToolError} `invalid_argument` when `executor` is not a `ToolExecutor`, for an unknown
 * option, when `limit` is not a positive integer, `interval` not a positive number, or `key`/`now` of the wrong type.
 */
export function withRateLimit(
  executor: ToolExecutor,
  options: ExecutorRateLimitOptions,
): ToolExecutor {
  checkExecutor(executor, 'withRateLimit');
  refuseUnknownOptions(options, RATE_LIMIT_KEYS, 'withRateLimit(executor, { limit, interval })');
  const { limit, interval, key = 'tool', now = Date.now } = options;
  checkCount(limit, 'withRateLimit({ limit })');
  checkPositive(interval, 'withRateLimit({ interval })');
  if (key !== 'tool' && typeof key !== 'function') {
    throw new ToolError(
      'invalid_argument',
      `withRateLimit({ key }) must be 'tool' or a function of the invocation, got ${String(key)}`,
    );
  }
  if (typeof now !== 'function') {
    throw new ToolError(
      'invalid_argument',
      'withRateLimit({ now }) must be a function returning milliseconds',
    );
  }
  const keyOf = key === 'tool' ? (invocation: ToolInvocation) => invocation.toolName : key;
  const buckets = new TokenBuckets(limit, interval);
  return {
    invoke(invocation) {
      const started = performance.now();
      let id: string;
      try {
        id = keyOf(invocation);
      } catch (error) {
        return Promise.resolve(failedResult(invocation.toolName, error, started, 'execution'));
      }
      const wait = buckets.take(id, now());
      if (wait > 0) {
        return Promise.resolve(
          failedResult(
            invocation.toolName,
            new ToolError(
              'rate_limited',
              `tool "${invocation.toolName}" is over its rate limit of ${limit} calls per ${interval} ms (key "${id}"); retry in ${wait} ms`,
            ),
            started,
            'rate_limited',
          ),
        );
      }
      return settle(executor, invocation);
    },
  };
}

/** An {@link withAudit} record: `invoked` before the call, `completed` after it. */
export type ExecutorAuditRecord =
  | {
      readonly type: 'invoked';
      readonly toolName: string;
      /** Epoch milliseconds. */
      readonly at: number;
      /** The payload with the values of secret keys replaced by {@link REDACTED}. */
      readonly payload: unknown;
      readonly context?: ToolInvocationContext;
    }
  | {
      readonly type: 'completed';
      readonly toolName: string;
      /** Epoch milliseconds. */
      readonly at: number;
      /** The payload, redacted as in the `invoked` record. */
      readonly payload: unknown;
      readonly context?: ToolInvocationContext;
      readonly success: boolean;
      readonly errorCode?: ToolErrorCode;
      /** The invocation's `metadata.duration`. */
      readonly duration: number;
      /** The invocation's `metadata.cost`, when priced. */
      readonly cost?: number;
    };

/** Receives {@link ExecutorAuditRecord}s; what it throws or rejects with is ignored. */
export type ExecutorAuditSink = (record: ExecutorAuditRecord) => void | Promise<void>;

/** Options of {@link withAudit}. */
export interface ExecutorAuditOptions {
  /**
   * Which payload keys (at any depth) have their values redacted: a list of names, compared
   * case-insensitively and ignoring `-` and `_` (default {@link DEFAULT_REDACTED_KEYS}; extend it
   * with `[...DEFAULT_REDACTED_KEYS, 'ssn']`), or a predicate of the key.
   */
  readonly redact?: readonly string[] | ((key: string) => boolean);
  /** Clock in epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/** The payload keys {@link withAudit} redacts unless told otherwise. */
export const DEFAULT_REDACTED_KEYS: readonly string[] = Object.freeze([
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'apiKey',
  'authorization',
  'cookie',
  'privateKey',
]);

const normalise = (key: string): string => key.toLowerCase().replace(/[-_]/g, '');

function redactor(redact: ExecutorAuditOptions['redact']): (payload: unknown) => unknown {
  let secret: (key: string) => boolean;
  if (typeof redact === 'function') secret = redact;
  else if (redact === undefined || Array.isArray(redact)) {
    const names = new Set((redact ?? DEFAULT_REDACTED_KEYS).map(normalise));
    secret = (key) => names.has(normalise(key));
  } else {
    throw new ToolError(
      'invalid_argument',
      'withAudit({ redact }) must be a list of key names or a predicate of the key',
    );
  }
  const walk = (value: unknown, seen: WeakSet<object>): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    // A payload that contains itself is recorded once, not walked forever.
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    const out = Array.isArray(value)
      ? value.map((item: unknown) => walk(item, seen))
      : // fromEntries defines keys, so a payload key named `__proto__` stays a key.
        Object.fromEntries(
          Object.entries(value).map(([key, item]) => [
            key,
            secret(key) ? REDACTED : walk(item, seen),
          ]),
        );
    seen.delete(value);
    return out;
  };
  return (payload) => walk(payload, new WeakSet());
}

/**
 * Records every invocation to `sink`: an `invoked` record before `executor` is called and a
 * `completed` one after (success, error code, duration, cost), with the payload's secret keys
 * redacted ({@link ExecutorAuditOptions.redact}). A failing sink never fails the invocation.
 * Composes with {@link withTimeout} and {@link withRateLimit} in any order: outside them it
 * also records their failures, inside them it sees only what they let through.
 *
 * @throws {ToolError} `invalid_argument` when `executor` is not a `ToolExecutor`, `sink` not a
 * function, or `redact`/`now` of the wrong type.
 */
export function withAudit(
  executor: ToolExecutor,
  sink: ExecutorAuditSink,
  options: ExecutorAuditOptions = {},
): ToolExecutor {
  checkExecutor(executor, 'withAudit');
  if (typeof sink !== 'function') {
    throw new ToolError(
      'invalid_argument',
      'withAudit(executor, sink): sink must be a function receiving records',
    );
  }
  const shape = redactor(options.redact);
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') {
    throw new ToolError(
      'invalid_argument',
      'withAudit({ now }) must be a function returning milliseconds',
    );
  }
  const emit = (record: ExecutorAuditRecord): void => {
    try {
      const pending = sink(record);
      if (pending instanceof Promise) pending.catch(() => undefined);
    } catch {
      // An audit sink must not change the outcome of the invocation it records.
    }
  };
  return {
    async invoke(invocation) {
      const { toolName, context } = invocation;
      const payload = shape(invocation.payload);
      const common = context === undefined ? { toolName, payload } : { toolName, payload, context };
      emit({ type: 'invoked', at: now(), ...common });
      const result = await settle(executor, invocation);
      const { duration, cost } = result.metadata;
      emit({
        type: 'completed',
        at: now(),
        ...common,
        success: result.success,
        ...(result.errorCode === undefined ? {} : { errorCode: result.errorCode }),
        duration,
        ...(cost === undefined ? {} : { cost }),
      });
      return result;
    },
  };
}
