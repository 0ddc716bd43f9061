import { raceAbort, ToolError, type ToolErrorCode } from '@toolplane/toolmodel';
import { abortError } from './errors.js';
import type { Runner } from './runner/types.js';

/** Who is asking, for tracing and policy; passed to the tool as request metadata. */
export interface ToolInvocationContext {
  readonly traceId?: string;
  readonly userId?: string;
  readonly tags?: readonly string[];
}

/** One MPLP tool invocation. */
export interface ToolInvocation {
  /** The tool: a canonical ID for {@link createToolExecutor}, a handler name for {@link InMemoryToolExecutor}. */
  readonly toolName: string;
  readonly payload?: unknown;
  readonly context?: ToolInvocationContext;
  /** Cancels the invocation. */
  readonly signal?: AbortSignal;
}

/** The outcome of a {@link ToolInvocation}: always resolved, never rejected. */
export interface ToolInvocationResult {
  readonly toolName: string;
  readonly success: boolean;
  /** The structured result, on success. */
  readonly output?: unknown;
  /** What went wrong, on failure. */
  readonly errorMessage?: string;
  /** The failure's {@link ToolErrorCode}, on failure. */
  readonly errorCode?: ToolErrorCode;
  readonly metadata: {
    /** Milliseconds the invocation took; always set. */
    readonly duration: number;
    /** What the invocation cost, as the executor's {@link CostFunction} priced it. */
    readonly cost?: number;
  };
}

/** The MPLP `ToolExecutor` contract: invoke by name, get a result object, never an exception. */
export interface ToolExecutor {
  invoke(invocation: ToolInvocation): Promise<ToolInvocationResult>;
}

/**
 * Prices one finished invocation (success or failure) for `metadata.cost`. Returning
 * `undefined` leaves the cost out; so do a non-finite number and a throw, which never change the
 * invocation's outcome.
 */
export type CostFunction = (
  invocation: ToolInvocation,
  result: ToolInvocationResult,
) => number | undefined;

/** Options of {@link createToolExecutor}, {@link createInMemoryToolExecutor} and {@link InMemoryToolExecutor}. */
export interface ToolExecutorOptions {
  /** Sets `metadata.cost` of every result; see {@link CostFunction}. */
  readonly cost?: CostFunction;
}

/**
 * The failure result for `error`: a `ToolError`'s code, or `fallback` for anything else.
 *
 * @internal
 */
export function failedResult(
  toolName: string,
  error: unknown,
  started: number,
  fallback: ToolErrorCode,
): ToolInvocationResult {
  return {
    toolName,
    success: false,
    errorMessage: error instanceof Error ? error.message : String(error),
    errorCode: ToolError.isInstance(error) ? error.code : fallback,
    metadata: { duration: performance.now() - started },
  };
}

/**
 * `result` with `metadata.cost` set by `cost` (when it prices it).
 *
 * @internal
 */
export function priced(
  invocation: ToolInvocation,
  result: ToolInvocationResult,
  cost: CostFunction | undefined,
): ToolInvocationResult {
  if (cost === undefined) return result;
  let value: number | undefined;
  try {
    value = cost(invocation, result);
  } catch {
    // Pricing is bookkeeping: a broken cost function must not turn a success into a failure.
    return result;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return result;
  return { ...result, metadata: { ...result.metadata, cost: value } };
}

function checkOptions(options: ToolExecutorOptions, what: string): void {
  if (
    typeof options !== 'object' ||
    (options as unknown) === null ||
    (options.cost !== undefined && typeof options.cost !== 'function')
  ) {
    throw new ToolError(
      'invalid_argument',
      `${what}: cost must be a function (invocation, result) => number`,
    );
  }
}

/** `work`, or a rejection as soon as `signal` aborts: a function may ignore its signal. */
function untilAborted(
  work: unknown,
  signal: AbortSignal | undefined,
  toolName: string,
): Promise<unknown> {
  if (signal === undefined) return Promise.resolve(work);
  // The function itself may have aborted it, before a listener could hear it: raceAbort
  // rejects at once then.
  return raceAbort(Promise.resolve(work), signal, {
    error: (aborted) => abortError(aborted, { toolId: toolName }),
  });
}

function metaOf(context: ToolInvocationContext | undefined): Record<string, unknown> | undefined {
  if (context === undefined) return undefined;
  const meta: Record<string, unknown> = {};
  if (context.traceId !== undefined) meta.traceId = context.traceId;
  if (context.userId !== undefined) meta.userId = context.userId;
  if (context.tags !== undefined) meta.tags = [...context.tags];
  return meta;
}

/**
 * Adapts a {@link Runner} to the MPLP `ToolExecutor` contract: `toolName` is the canonical tool
 * ID, `payload` the arguments, `context` travels as request metadata, and every failure becomes
 * `{ success: false, errorCode, errorMessage }`. Wrap it with {@link withTimeout},
 * {@link withRateLimit} or {@link withAudit}, or give the runner middleware.
 *
 * @throws {ToolError} `invalid_argument` when `options.cost` is not a function.
 */
export function createToolExecutor(
  runner: Runner,
  options: ToolExecutorOptions = {},
): ToolExecutor {
  checkOptions(options, 'createToolExecutor');
  const { cost } = options;
  return {
    async invoke(invocation) {
      const { toolName, payload, context, signal } = invocation;
      const started = performance.now();
      let result: ToolInvocationResult;
      try {
        const run = await runner.run(toolName, payload, { signal, meta: metaOf(context) });
        result = {
          toolName,
          success: true,
          output: run.structured,
          metadata: { duration: performance.now() - started },
        };
      } catch (error) {
        result = failedResult(toolName, error, started, 'execution');
      }
      return priced(invocation, result, cost);
    },
  };
}

/** What an {@link InMemoryTool} gets beside the payload and context. */
export interface InMemoryToolOptions {
  /** Aborts when the invocation is cancelled or times out ({@link withTimeout}). */
  readonly signal: AbortSignal | undefined;
}

/**
 * A plain (possibly async) function serving one tool of an {@link InMemoryToolExecutor}. `P` is
 * the payload it declares (`async (payload: { query: string }) => …`, as the MPLP guide writes
 * handlers); an undeclared payload is `unknown`. The executor does not check payloads: a handler
 * that needs a shape it can trust validates it, or runs behind {@link createToolExecutor}, whose
 * runner validates against the tool's schema.
 */
export type InMemoryTool<P = unknown> = (
  payload: P,
  context: ToolInvocationContext | undefined,
  options: InMemoryToolOptions,
) => unknown;

/** Handlers by tool name, each with the payload type it declares. */
export type InMemoryTools<Payloads extends Record<string, unknown>> = {
  readonly [Name in keyof Payloads]: InMemoryTool<Payloads[Name]>;
};

/**
 * An MPLP `ToolExecutor` over a plain record of functions, for tests and small agents:
 * `new InMemoryToolExecutor({ echo: async (payload) => payload })`. Only the record's own
 * function properties are tools: `invoke({ toolName: 'toString' })` is `tool_not_found`, never
 * a call. {@link createInMemoryToolExecutor} is the same as a factory.
 */
export class InMemoryToolExecutor<
  Payloads extends Record<string, unknown> = Record<string, unknown>,
> implements ToolExecutor {
  readonly #tools = new Map<string, InMemoryTool<never>>();
  readonly #cost: CostFunction | undefined;

  /** @throws {ToolError} `invalid_argument` when `handlers` is not an object or `options.cost` not a function. */
  constructor(handlers: InMemoryTools<Payloads>, options: ToolExecutorOptions = {}) {
    // Callers from plain JavaScript (or the seed's guides) may pass anything.
    if (typeof handlers !== 'object' || (handlers as unknown) === null) {
      throw new ToolError(
        'invalid_argument',
        `InMemoryToolExecutor: handlers must be a record of functions by tool name, got ${typeof handlers}`,
      );
    }
    checkOptions(options, 'InMemoryToolExecutor');
    for (const [name, handler] of Object.entries(handlers as Record<string, unknown>)) {
      if (typeof handler === 'function') this.#tools.set(name, handler as InMemoryTool<never>);
    }
    this.#cost = options.cost;
  }

  /** Calls the named function; resolves to a failure result instead of rejecting. */
  async invoke(invocation: ToolInvocation): Promise<ToolInvocationResult> {
    const { toolName, payload, context, signal } = invocation;
    const started = performance.now();
    let result: ToolInvocationResult;
    const handler = this.#tools.get(toolName);
    if (handler === undefined) {
      const known = [...this.#tools.keys()].join(', ') || 'none';
      result = failedResult(
        toolName,
        new ToolError(
          'tool_not_found',
          `tool "${toolName}" is not registered (registered: ${known})`,
        ),
        started,
        'tool_not_found',
      );
    } else if (signal?.aborted === true) {
      result = failedResult(
        toolName,
        new ToolError('cancelled', `invocation of "${toolName}" was cancelled`, {
          cause: signal.reason,
        }),
        started,
        'cancelled',
      );
    } else {
      try {
        // The payload is the caller's; the handler's declared type is its own assertion.
        const output = await untilAborted(
          handler(payload as never, context, { signal }),
          signal,
          toolName,
        );
        result = {
          toolName,
          success: true,
          output,
          metadata: { duration: performance.now() - started },
        };
      } catch (error) {
        result = failedResult(toolName, error, started, 'execution');
      }
    }
    return priced(invocation, result, this.#cost);
  }
}

/**
 * {@link InMemoryToolExecutor} as a factory: `createInMemoryToolExecutor({ echo: (p) => p })`.
 *
 * @throws {ToolError} `invalid_argument` when `handlers` is not an object or `options.cost` not a function.
 */
export function createInMemoryToolExecutor<
  Payloads extends Record<string, unknown> = Record<string, unknown>,
>(handlers: InMemoryTools<Payloads>, options: ToolExecutorOptions = {}): ToolExecutor {
  return new InMemoryToolExecutor(handlers, options);
}
