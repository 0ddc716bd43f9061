import type { CallToolResult } from '@modelcontextprotocol/client';
import { defaultBackendSelector, type BackendSelector, type ToolIndex } from '@toolplane/toolindex';
import {
  createValidator,
  parseToolId,
  raceAbort,
  ToolError,
  type SchemaValidator,
  type Tool,
  type ToolBackend,
} from '@toolplane/toolmodel';
import { withArgumentHints } from './argument-hints.js';
import { abortError, ChainError, isExecutionCode, toToolError } from './errors.js';
import type { LocalHandler, LocalHandlerContext, LocalHandlers } from './local-registry.js';
import type { McpExecutor } from './mcp-executor.js';
import { isMcpToolResult } from './mcp-result.js';
import { mcpResultText, normalizeMcpResult } from './normalize.js';
import type {
  Invoke,
  Middleware,
  ProgressEvent,
  ProgressListener,
  ProviderExecutor,
  RunOptions,
  RunResult,
  RunStreamOptions,
  StreamEvent,
  ToolCall,
} from './types.js';

/** A value, or a promise of one. */
export type MaybePromise<T> = T | Promise<T>;

/** Options of {@link createRunner}. */
export interface RunnerOptions {
  /** Where tools and their backends are looked up first. */
  readonly index?: Pick<ToolIndex, 'getTool'>;
  /** Finds a tool the index does not have (or when there is no index). */
  readonly resolveTool?: (id: string) => MaybePromise<Tool | undefined>;
  /** Finds the backends of a tool found by `resolveTool`. */
  readonly resolveBackends?: (id: string) => MaybePromise<readonly ToolBackend[] | undefined>;
  /**
   * Picks the backend to run on. Default: the index's choice for indexed tools, toolindex's
   * `defaultBackendSelector` (local > provider > mcp) for the others.
   */
  readonly selectBackend?: BackendSelector;
  /** Validates arguments and results; default toolmodel's `createValidator()`. */
  readonly validator?: SchemaValidator;
  /** Which validations run (both by default). */
  readonly validate?: { readonly input?: boolean; readonly output?: boolean };
  /** Handlers of `local` backends: a {@link createLocalRegistry} registry, or anything with a `get`. */
  readonly local?: LocalHandlers;
  /** Runs tools on `mcp` backends; see {@link createMcpExecutor}. */
  readonly mcp?: McpExecutor;
  /** Runs tools on `provider` backends. */
  readonly provider?: ProviderExecutor;
  /** Wraps every execution, first = outermost; composed once, here. */
  readonly middleware?: readonly Middleware[];
}

/** One step of {@link Runner.runChain}. */
export interface ChainStep {
  readonly toolId: string;
  readonly args?: Record<string, unknown>;
  /** Pass the previous step's `structured` result as `args.previous`. */
  readonly usePrevious?: boolean;
}

/** A progress report of {@link Runner.runChain}: one per completed step. */
export interface ChainProgressEvent extends ProgressEvent {
  /** The step that just completed. */
  readonly stepIndex: number;
  readonly toolId: string;
}

/** Options of {@link Runner.runChain}. */
export interface RunChainOptions {
  /** Checked before every step, and passed to each. */
  readonly signal?: AbortSignal;
  /** Receives one report per completed step: `progress` completed out of `total`. */
  readonly onProgress?: (event: ChainProgressEvent) => void;
}

/** The outcome of a successful chain. */
export interface ChainResult {
  /** The last step's result. */
  readonly result: RunResult;
  /** Every step's result, in order. */
  readonly steps: readonly RunResult[];
}

/** Runs tools by canonical ID; see {@link createRunner}. */
export interface Runner {
  /**
   * Runs a tool: resolve, select a backend, validate the input, execute, normalise, validate
   * the output. `args` is never mutated; `undefined` is `{}`.
   *
   * @throws {ToolError} `invalid_tool_id`, `tool_not_found`, `no_backends`, `validation` (with
   * `errors`), `execution`, `output_validation`, `cancelled`, and what middleware adds
   * (`timeout`, `rate_limited`, `circuit_open`); each with `toolId`, `backend` and `op`.
   */
  run(toolId: string, args?: unknown, options?: RunOptions): Promise<RunResult>;
  /**
   * Runs a tool as a stream of `progress` and `chunk` events ending in one `done` or `error`
   * event; failures are `error` events, never throws. Breaking out of the iteration cancels
   * the call. Local handlers may be async generators (each yield is a chunk), MCP tools stream
   * their progress; a provider without `callToolStream` yields `stream_not_supported`.
   */
  runStream(toolId: string, args?: unknown, options?: RunStreamOptions): AsyncIterable<StreamEvent>;
  /**
   * Runs steps one after another, stopping at the first failure.
   *
   * @throws {ChainError} the failing step's code, with `stepIndex` and the completed `steps`;
   * `cancelled` when the signal aborts between steps.
   */
  runChain(steps: readonly ChainStep[], options?: RunChainOptions): Promise<ChainResult>;
}

const NEVER_ABORTED = new AbortController().signal;
const ignoreProgress: ProgressListener = () => undefined;
const BARE_CONTEXT: LocalHandlerContext = Object.freeze({
  signal: NEVER_ABORTED,
  progress: ignoreProgress,
  meta: undefined,
});

interface Resolved {
  readonly tool: Tool;
  readonly backends: readonly ToolBackend[];
  /** The index's own pick; `undefined` when the tool came from the fallback resolvers. */
  readonly picked: ToolBackend | undefined;
  readonly fromIndex: boolean;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** A promise rejected with `error`. */
// eslint-disable-next-line @typescript-eslint/require-await -- async is how it rejects
async function rejected(error: unknown): Promise<never> {
  throw error;
}

/** Applies `next` now when `value` is ready, after it settles when it is a promise. */
function then<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Drains a handler's async iterable: each value is a chunk; the return value, when not
 * `undefined`, is the result, otherwise the chunks are.
 */
async function drain(iterable: AsyncIterable<unknown>, call: ToolCall): Promise<unknown> {
  const iterator = iterable[Symbol.asyncIterator]();
  const chunks: unknown[] = [];
  let finished = false;
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done === true) {
        finished = true;
        return step.value !== undefined ? step.value : chunks;
      }
      if (call.signal?.aborted === true) throw abortError(call.signal);
      chunks.push(step.value);
      call.onChunk?.(step.value);
    }
  } finally {
    // Not awaited: a generator busy in an await only returns once that settles.
    if (!finished) Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/**
 * Creates a {@link Runner}.
 *
 * @example
 * const runner = createRunner({ index, local: createLocalRegistry().register('echo', (a) => a) });
 * const { structured } = await runner.run('demo:echo', { text: 'hi' });
 *
 * @throws {ToolError} `invalid_argument` when `middleware` is not an array of functions.
 */
export function createRunner(options: RunnerOptions = {}): Runner {
  const { index, resolveTool, resolveBackends, selectBackend, local, mcp, provider } = options;
  const validateInput = options.validate?.input ?? true;
  const validateOutput = options.validate?.output ?? true;
  const validator =
    validateInput || validateOutput ? (options.validator ?? createValidator()) : undefined;
  const middleware: readonly Middleware[] = options.middleware ?? [];
  if (!Array.isArray(options.middleware ?? []) || middleware.some((m) => typeof m !== 'function')) {
    throw new ToolError('invalid_argument', 'middleware must be an array of middleware functions');
  }

  function localHandler(call: ToolCall): LocalHandler {
    const name = (call.backend as { local: { name: string } }).local.name;
    const handler = local?.get(name);
    if (handler === undefined) {
      throw new ToolError(
        'execution',
        local === undefined
          ? `tool "${call.toolId}" is bound to local handler "${name}" but the runner has no local registry; pass createRunner({ local })`
          : `no local handler "${name}" is registered for tool "${call.toolId}"; register it with local.register(${JSON.stringify(name)}, handler)`,
      );
    }
    return handler;
  }

  /** Runs the call on its backend; returns synchronously when a local handler does. */
  function dispatch(call: ToolCall): unknown {
    const backend = call.backend;
    switch (backend.kind) {
      case 'local': {
        const handler = localHandler(call);
        const context: LocalHandlerContext =
          call.signal === undefined && call.onProgress === undefined && call.meta === undefined
            ? BARE_CONTEXT
            : {
                signal: call.signal ?? NEVER_ABORTED,
                progress: call.onProgress ?? ignoreProgress,
                meta: call.meta,
              };
        const out = handler(call.args, context);
        if (isPromiseLike(out)) {
          return Promise.resolve(out).then((value) =>
            isAsyncIterable(value) ? drain(value, call) : value,
          );
        }
        return isAsyncIterable(out) ? drain(out, call) : out;
      }
      case 'mcp': {
        if (mcp === undefined) {
          throw new ToolError(
            'execution',
            `tool "${call.toolId}" runs on MCP server "${backend.mcp.serverName}" but the runner has no MCP executor; pass createRunner({ mcp: createMcpExecutor({ clients }) })`,
          );
        }
        return mcp.callTool(backend.mcp.serverName, call.tool.name, call.args, {
          signal: call.signal,
          onProgress: call.onProgress,
          meta: call.meta,
        });
      }
      case 'provider': {
        if (provider === undefined) {
          throw new ToolError(
            'execution',
            `tool "${call.toolId}" runs on provider "${backend.provider.providerId}" but the runner has no provider executor; pass createRunner({ provider })`,
          );
        }
        const { providerId, toolId } = backend.provider;
        const providerOptions = {
          signal: call.signal,
          onProgress: call.onProgress,
          meta: call.meta,
        };
        if (call.onChunk !== undefined && provider.callToolStream !== undefined) {
          return drain(
            provider.callToolStream(providerId, toolId, call.args, providerOptions),
            call,
          );
        }
        return provider.callTool(providerId, toolId, call.args, providerOptions);
      }
    }
  }

  const invoke: Invoke | undefined =
    middleware.length === 0
      ? undefined
      : middleware.reduceRight<Invoke>(
          (next, wrap) => wrap(next),
          // async, so a handler that throws synchronously still yields a rejected promise.
          async (call) => await dispatch(call),
        );

  function notFound(id: string): ToolError {
    return new ToolError(
      'tool_not_found',
      `tool "${id}" not found${index === undefined ? '' : ' in the index'}${resolveTool === undefined ? '' : ' or by resolveTool'}; register it or check the ID`,
      { toolId: id, op: 'resolve' },
    );
  }

  function resolveFallback(id: string): MaybePromise<Resolved> {
    // Only IDs the index does not know get here, so the syntax check stays off the hot path.
    parseToolId(id);
    if (resolveTool === undefined) throw notFound(id);
    return then(resolveTool(id), (tool) => {
      if (tool === undefined) throw notFound(id);
      return then(resolveBackends?.(id), (backends) => ({
        tool,
        backends: backends ?? [],
        picked: undefined,
        fromIndex: false,
      }));
    });
  }

  function resolve(id: string): MaybePromise<Resolved> {
    if (index !== undefined) {
      try {
        const entry = index.getTool(id);
        return {
          tool: entry.tool,
          backends: entry.backends,
          picked: entry.backend,
          fromIndex: true,
        };
      } catch (error) {
        if (!ToolError.isInstance(error) || error.code !== 'tool_not_found') throw error;
      }
    }
    return resolveFallback(id);
  }

  function select(id: string, resolved: Resolved): ToolBackend {
    const backend =
      selectBackend !== undefined
        ? selectBackend(resolved.backends, resolved.tool)
        : resolved.fromIndex
          ? resolved.picked
          : defaultBackendSelector(resolved.backends, resolved.tool);
    if (backend === undefined) {
      throw new ToolError(
        'no_backends',
        resolved.backends.length === 0
          ? `tool "${id}" has no backends; bind one (local, provider or mcp) before running it`
          : `no backend of tool "${id}" was selected (the selector declined all ${resolved.backends.length})`,
        { toolId: id, op: 'select' },
      );
    }
    return backend;
  }

  function finish(call: ToolCall, raw: unknown): RunResult {
    const { toolId, tool, backend } = call;
    let result: RunResult;
    if (backend.kind === 'mcp' || isMcpToolResult(raw)) {
      // A spread copy drops the non-enumerable mark of a handler's MCP result.
      const mcpResult =
        backend.kind === 'mcp' ? (raw as CallToolResult) : { ...(raw as CallToolResult) };
      if (backend.kind !== 'mcp' && mcpResult.isError === true) {
        const text = mcpResultText(mcpResult);
        throw new ToolError(
          'execution',
          text.length > 0 ? text : `tool "${toolId}" returned an error result without text`,
          { cause: mcpResult, toolId, backend, op: 'execute' },
        );
      }
      let structured: unknown;
      try {
        structured = normalizeMcpResult(mcpResult);
      } catch (error) {
        throw toToolError(error, 'execution', { toolId, backend, op: 'normalize' });
      }
      result = { toolId, tool, backend, structured, mcpResult };
    } else {
      result = { toolId, tool, backend, structured: raw };
    }
    if (validateOutput && tool.outputSchema !== undefined) {
      let outcome;
      try {
        outcome = (validator as SchemaValidator).validateOutput(tool, result.structured);
      } catch (error) {
        throw toToolError(error, 'output_validation', { toolId, backend, op: 'validate_output' });
      }
      if (!outcome.valid) {
        throw new ToolError(
          'output_validation',
          `tool "${toolId}" returned a result that does not match its outputSchema: ${outcome.errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}`,
          { toolId, backend, op: 'validate_output', errors: outcome.errors },
        );
      }
    }
    return result;
  }

  function failExecution(call: ToolCall, error: unknown): never {
    const context = { toolId: call.toolId, backend: call.backend, op: 'execute' as const };
    if (
      call.signal?.aborted === true &&
      !(ToolError.isInstance(error) && error.code !== 'cancelled')
    ) {
      throw abortError(call.signal, context);
    }
    // Recursion stopped deeper down is the caller's error at every level, not this tool's failure.
    if (ToolError.isInstance(error) && error.code === 'call_depth_exceeded') throw error;
    // A backend's own ToolError that names no tool yet (the MCP executor's, for one) is this
    // call's error: it gets the call's context instead of a wrapper, so what it carries as
    // `cause` (an `isError` result, an McpError) stays one level down, as McpExecutor documents.
    if (
      ToolError.isInstance(error) &&
      error.name === 'ToolError' &&
      error.toolId === undefined &&
      error.backend === undefined &&
      error.op === undefined &&
      isExecutionCode(error.code)
    ) {
      const adopted = new ToolError(error.code, error.message, {
        ...context,
        cause: error.cause,
        errors: error.errors,
      });
      // The stack of the backend's error says where it failed; the runner's would not.
      adopted.stack = error.stack;
      throw adopted;
    }
    throw toToolError(error, 'execution', context);
  }

  function execute(call: ToolCall): MaybePromise<RunResult> {
    let out: unknown;
    try {
      out = invoke === undefined ? dispatch(call) : invoke(call);
    } catch (error) {
      failExecution(call, error);
    }
    if (!(out instanceof Promise)) return finish(call, out);
    // A handler or provider may ignore the signal, so the call is raced against it; an MCP
    // executor rejects as soon as the signal aborts (its contract), so racing it too would only
    // cost every call a promise and a listener.
    const settled =
      call.signal === undefined || call.backend.kind === 'mcp'
        ? out
        : raceAbort(out, call.signal, {
            error: (signal) =>
              abortError(signal, { toolId: call.toolId, backend: call.backend, op: 'execute' }),
          });
    return settled.then(
      (raw) => finish(call, raw),
      (error: unknown) => failExecution(call, error),
    );
  }

  function proceed(
    id: string,
    resolved: Resolved,
    args: unknown,
    options: RunOptions | undefined,
    onChunk: ((chunk: unknown) => void) | undefined,
  ): MaybePromise<RunResult> {
    const backend = select(id, resolved);
    const tool = resolved.tool;
    const input = args === undefined ? {} : args;
    if (validateInput) {
      let outcome;
      try {
        outcome = (validator as SchemaValidator).validateInput(tool, input);
      } catch (error) {
        throw toToolError(error, 'validation', { toolId: id, backend, op: 'validate_input' });
      }
      if (!outcome.valid) {
        const errors = withArgumentHints(tool, outcome.errors);
        throw new ToolError(
          'validation',
          `invalid arguments for tool "${id}": ${errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}`,
          { toolId: id, backend, op: 'validate_input', errors },
        );
      }
    }
    if (
      onChunk !== undefined &&
      backend.kind === 'provider' &&
      provider?.callToolStream === undefined
    ) {
      throw new ToolError(
        'stream_not_supported',
        `tool "${id}" runs on provider "${backend.provider.providerId}", whose executor cannot stream; use run() instead`,
        { toolId: id, backend, op: 'execute' },
      );
    }
    const signal = options?.signal;
    if (signal?.aborted === true) throw abortError(signal, { toolId: id, backend, op: 'execute' });
    const call = {
      toolId: id,
      tool,
      backend,
      args: input,
      signal,
      onProgress: options?.onProgress,
      onChunk,
      meta: options?.meta,
      idempotent: options?.idempotent === true,
    };
    // An MCP server's progress is its own to send, and a stream ends in its own `done`; a local
    // or provider tool run with a listener tells it that it began and, when it reported nothing
    // itself, that it finished.
    if (call.onProgress === undefined || backend.kind === 'mcp' || onChunk !== undefined) {
      return execute(call);
    }
    const coarse = coarseProgress(call.onProgress);
    return then(execute({ ...call, onProgress: coarse.relay }), (result) => {
      coarse.finish();
      return result;
    });
  }

  function start(
    id: string,
    args: unknown,
    options: RunOptions | undefined,
    onChunk: ((chunk: unknown) => void) | undefined,
  ): MaybePromise<RunResult> {
    if (typeof id !== 'string' || id.length === 0) {
      throw new ToolError('invalid_tool_id', 'tool ID must be a non-empty string', {
        toolId: typeof id === 'string' ? id : undefined,
        op: 'resolve',
      });
    }
    const signal = options?.signal;
    if (signal?.aborted === true) throw abortError(signal, { toolId: id, op: 'resolve' });
    let resolved: MaybePromise<Resolved>;
    try {
      resolved = resolve(id);
    } catch (error) {
      throw toToolError(error, 'tool_not_found', { toolId: id, backend: undefined, op: 'resolve' });
    }
    if (resolved instanceof Promise) {
      return resolved.then(
        (value) => proceed(id, value, args, options, onChunk),
        (error: unknown) => {
          throw toToolError(error, 'tool_not_found', {
            toolId: id,
            backend: undefined,
            op: 'resolve',
          });
        },
      );
    }
    return proceed(id, resolved, args, options, onChunk);
  }

  function run(id: string, args?: unknown, options?: RunOptions): Promise<RunResult> {
    try {
      const result = start(id, args, options, undefined);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      return rejected(error);
    }
  }

  async function* runStream(
    id: string,
    args?: unknown,
    options: RunStreamOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const controller = new AbortController();
    const outer = options.signal;
    const forward = (): void => {
      controller.abort(outer?.reason);
    };
    if (outer?.aborted === true) forward();
    else outer?.addEventListener('abort', forward, { once: true });

    const queue: StreamEvent[] = [];
    let head = 0;
    let wake: (() => void) | undefined;
    const push = (event: StreamEvent): void => {
      queue.push(event);
      const waiting = wake;
      wake = undefined;
      waiting?.();
    };
    const toolId = typeof id === 'string' ? id : String(id);
    const runOptions: RunOptions = {
      signal: controller.signal,
      meta: options.meta,
      idempotent: options.idempotent,
      onProgress: (event) => {
        push({ type: 'progress', toolId, ...event });
      },
    };
    const onChunk = (data: unknown): void => {
      push({ type: 'chunk', toolId, data });
    };
    void Promise.resolve()
      .then(() => start(id, args, runOptions, onChunk))
      .then(
        (result) => {
          push({ type: 'done', toolId, result });
        },
        (error: unknown) => {
          push({
            type: 'error',
            toolId,
            error: ToolError.isInstance(error)
              ? error
              : toToolError(error, 'execution', { toolId, backend: undefined, op: 'execute' }),
          });
        },
      );

    let ended = false;
    try {
      for (;;) {
        while (head < queue.length) {
          const event = queue[head++] as StreamEvent;
          if (event.type === 'done' || event.type === 'error') ended = true;
          yield event;
          if (ended) return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      outer?.removeEventListener('abort', forward);
      if (!ended) {
        controller.abort(
          new ToolError('cancelled', `the consumer of tool "${toolId}"'s stream stopped reading`, {
            toolId,
            op: 'execute',
          }),
        );
      }
    }
  }

  async function runChain(
    steps: readonly ChainStep[],
    options: RunChainOptions = {},
  ): Promise<ChainResult> {
    if (!Array.isArray(steps) || steps.length === 0) {
      throw new ToolError('invalid_argument', 'runChain needs at least one step');
    }
    const { signal, onProgress } = options;
    const results: RunResult[] = [];
    let previous: unknown;
    for (let stepIndex = 0; stepIndex < steps.length; stepIndex++) {
      const step = steps[stepIndex] as ChainStep;
      if (signal?.aborted === true) {
        throw new ChainError(
          abortError(signal, { toolId: step.toolId, op: 'resolve' }),
          stepIndex,
          [...results],
        );
      }
      const args = step.usePrevious === true ? { ...step.args, previous } : step.args;
      let result: RunResult;
      try {
        result = await run(step.toolId, args, { signal });
      } catch (error) {
        const toolError = ToolError.isInstance(error)
          ? error
          : toToolError(error, 'execution', {
              toolId: step.toolId,
              backend: undefined,
              op: 'execute',
            });
        throw new ChainError(toolError, stepIndex, [...results]);
      }
      results.push(result);
      previous = result.structured;
      onProgress?.({
        progress: stepIndex + 1,
        total: steps.length,
        message: `step ${stepIndex + 1} of ${steps.length} done: ${step.toolId}`,
        stepIndex,
        toolId: step.toolId,
      });
    }
    return { result: results[results.length - 1] as RunResult, steps: results };
  }

  return { run, runStream, runChain };
}

/**
 * Progress for a backend that may report none: 0 at once (no total: the backend may have its
 * own), and 1 of 1 at the end unless the backend reported progress of its own, which is relayed
 * as it is.
 */
function coarseProgress(listener: ProgressListener): {
  relay: ProgressListener;
  finish: () => void;
} {
  let reported = false;
  listener({ progress: 0 });
  return {
    relay: (event) => {
      reported = true;
      listener(event);
    },
    finish: () => {
      if (!reported) listener({ progress: 1, total: 1 });
    },
  };
}
