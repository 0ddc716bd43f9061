// Where a call goes once its backend is chosen: a local handler, the MCP executor or the
// provider executor. A local handler that returns at once is answered at once (no promise),
// which keeps a local call within a few nanoseconds of calling the handler itself.
import { ToolError } from '@toolplane/toolmodel';
import { abortError } from '../errors.js';
import type { LocalHandler, LocalHandlerContext, LocalHandlers } from '../local-registry.js';
import type { McpExecutor } from '../mcp-executor.js';
import type { ProgressListener, ProviderExecutor, ToolCall } from '../types.js';

/** The executors a runner was given, one per kind of backend. */
export interface Executors {
  readonly local?: LocalHandlers;
  readonly mcp?: McpExecutor;
  readonly provider?: ProviderExecutor;
}

const ignoreProgress: ProgressListener = () => undefined;

/**
 * The signal of a call made without one. It can never abort (no one holds its controller), so a
 * listener added to it could never run, and it keeps none: shared by every such call, it would
 * otherwise keep every listener a handler adds and never removes (a common way to write one),
 * call after call, for the life of the process.
 */
const NEVER_ABORTED: AbortSignal = listenerless(new AbortController().signal);

function listenerless(signal: AbortSignal): AbortSignal {
  signal.addEventListener = () => undefined;
  return signal;
}

// What a handler called with no signal, listener or meta gets: one frozen object for every call.
const BARE_CONTEXT: LocalHandlerContext = Object.freeze({
  signal: NEVER_ABORTED,
  progress: ignoreProgress,
  meta: undefined,
});

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
 * The function that runs a call on its backend with `executors`; it returns synchronously when
 * a local handler does.
 *
 * @throws {ToolError} `execution` when the call's kind of backend has no executor, or its local
 * handler is not registered.
 */
export function createDispatch({ local, mcp, provider }: Executors): (call: ToolCall) => unknown {
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

  return function dispatch(call: ToolCall): unknown {
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
  };
}
