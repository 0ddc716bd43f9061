import { defaultBackendSelector } from '@toolplane/toolindex';
import {
  createValidator,
  isJsonData,
  jsonProblem,
  optionKeys,
  parseToolId,
  raceAbort,
  refuseUnknownOptions,
  rejectedWith,
  ToolError,
  type SchemaValidator,
  type Tool,
  type ToolBackend,
} from '@toolplane/toolmodel';
import { withArgumentHints } from '../argument-hints.js';
import { abortError, isExecutionCode, toToolError } from '../errors.js';
import { checkRunOptions } from '../middleware/options.js';
import type {
  Invoke,
  Middleware,
  ProgressListener,
  RunOptions,
  RunResult,
  ToolCall,
} from '../types.js';
import { runSteps } from './chain.js';
import { createDispatch } from './dispatch.js';
import { runResult } from './result.js';
import { streamRun } from './stream.js';
import type { MaybePromise, Runner, RunnerOptions } from './types.js';

/**
 * What tool arguments may hold (see `jsonProblem`): an `undefined` member is left out by JSON and
 * means an absent one; a `__proto__` member is JSON an MCP server receives as it is; nesting is
 * bounded far above any tool's arguments and below the stack a walk of them needs.
 */
const ARGUMENTS_JSON = { undefinedMembers: true, protoKeys: true, maxDepth: 1_000 } as const;

interface Resolved {
  readonly tool: Tool;
  readonly backends: readonly ToolBackend[];
  /** The index's own pick; `undefined` when the tool came from the fallback resolvers. */
  readonly picked: ToolBackend | undefined;
  readonly fromIndex: boolean;
}

/** Applies `next` now when `value` is ready, after it settles when it is a promise. */
function then<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

const KNOWN = optionKeys<RunnerOptions>({
  index: true,
  resolveTool: true,
  resolveBackends: true,
  selectBackend: true,
  validator: true,
  validate: true,
  local: true,
  mcp: true,
  provider: true,
  middleware: true,
});
// Options people pass by analogy with other libraries, and where that wish goes instead.
const INSTEAD: Readonly<Record<string, string>> = {
  tools: 'register tools in an index and pass it: createRunner({ index })',
  timeout: 'add the timeout(ms) middleware: createRunner({ middleware: [timeout(30_000)] })',
  retries: 'add the retry middleware: createRunner({ middleware: [retry({ retries })] })',
};

/**
 * Creates a {@link Runner}.
 *
 * @example
 * const runner = createRunner({ index, local: createLocalRegistry().register('echo', (a) => a) });
 * const { structured } = await runner.run('demo:echo', { text: 'hi' });
 *
 * @throws {ToolError} `invalid_argument` for an unknown option, or when `middleware` is not an
 * array of functions.
 */
export function createRunner(options: RunnerOptions = {}): Runner {
  refuseUnknownOptions(options, KNOWN, 'createRunner', { instead: INSTEAD });
  const { index, resolveTool, resolveBackends, selectBackend, local, mcp, provider } = options;
  const validateInput = options.validate?.input ?? true;
  const validateOutput = options.validate?.output ?? true;
  const validator =
    validateInput || validateOutput ? (options.validator ?? createValidator()) : undefined;
  const middleware: readonly Middleware[] = options.middleware ?? [];
  if (!Array.isArray(options.middleware ?? []) || middleware.some((m) => typeof m !== 'function')) {
    throw new ToolError('invalid_argument', 'middleware must be an array of middleware functions');
  }

  const dispatch = createDispatch({ local, mcp, provider });

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

  const outputValidator = validateOutput ? validator : undefined;
  const finish = (call: ToolCall, raw: unknown): RunResult => runResult(call, raw, outputValidator);

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
      // Arguments are what an MCP server would receive: JSON. A value JSON cannot carry (NaN, a
      // Date, a Map, a class instance, a cycle) would reach a local tool as it is and a remote
      // one changed (null, a string, {}) or not at all, so it is refused for every backend alike.
      if (!isJsonData(input, ARGUMENTS_JSON)) {
        const problem = jsonProblem(input, ARGUMENTS_JSON) ?? 'the value is not JSON data';
        throw new ToolError(
          'invalid_argument',
          `invalid arguments for tool "${id}": ${problem}; arguments must be JSON data`,
          { toolId: id, backend, op: 'validate_input' },
        );
      }
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
    checkRunOptions(options, 'run');
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
      return rejectedWith(error);
    }
  }

  return {
    run,
    runStream: (id, args, options = {}) => streamRun(start, id, args, options),
    runChain: (steps, options = {}) => runSteps(run, steps, options),
  };
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
