import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { LearningSearcher, ToolIndex } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import type { ProgressListener, Runner, RunResult } from '@toolplane/toolrun';
import { CALLER_META_KEY, type UpstreamRequestHandler } from '../connectors/connector.js';
import type { Connectors } from '../connectors/registry.js';
import type { Secrets } from '../secrets.js';
import { withTraceContext } from '../tracing.js';
import { guardCall, type ToolkitPinning } from '../pinning/toolkit-pinning.js';
import { nextCaller, type NestedCall } from './calling.js';
import { USER_NAMESPACE, type CallOptions } from './types.js';

/** What {@link callToolIn} takes from its toolkit. */
export interface ToolCallParts {
  readonly index: ToolIndex;
  readonly runner: Runner;
  readonly learner: LearningSearcher | undefined;
  readonly connectors: Connectors;
  readonly pinning: ToolkitPinning | undefined;
  readonly secrets: Secrets;
  readonly middlewareCount: number;
  /** Answerers of calls that brought their own (`onUpstreamRequest`), by caller token. */
  readonly callAnswerers: Map<string, UpstreamRequestHandler['handle']>;
  /** `options` with the resources it names by URI read (the toolkit's `withResources`). */
  readonly withResources: (options: CallOptions) => Promise<CallOptions>;
  /** Runs one call one level deeper, in a span, with the caller's session and progress. */
  readonly nested: <T>(
    options: CallOptions,
    call: NestedCall,
    fn: (onProgress: ProgressListener | undefined) => Promise<T>,
  ) => Promise<T>;
  /** Whether the toolkit has been closed (`close()`, or its run's signal aborted). */
  readonly closed: () => boolean;
}

/**
 * A call whose server connection the toolkit's own `close()` ended is cancelled by the caller's
 * side, not failed by a server that exited: `cancelled`, saying so, instead of `execution`.
 */
function closedInstead(error: unknown, id: string): unknown {
  if (!ToolError.isInstance(error) || error.code !== 'execution') return error;
  const { cause } = error;
  if (!SdkError.isInstance(cause) || cause.code !== SdkErrorCode.ConnectionClosed) return error;
  return new ToolError(
    'cancelled',
    `tool "${id}" was cancelled: the toolkit was closed while it ran`,
    {
      cause: error,
      toolId: error.toolId,
      backend: error.backend,
      op: error.op,
    },
  );
}

/** Whether a call's resources name one by URI, which must be read before the call. */
function namesUris(options: CallOptions): boolean {
  const given = options.resources;
  if (given === undefined) return false;
  for (const resource of given) if (typeof resource === 'string') return true;
  return false;
}

/**
 * Runs the tool `id` through the runner, as {@link Toolkit.callTool} does: the caller's
 * resources read, the pinning guard, the call tagged with a caller token, nested one level
 * deeper and, on a per-session server, on the session's connection.
 *
 * @throws {ToolError} `not_found` for the user namespace, the pinning guard's and the runner's
 * codes, and an unavailable server's error; messages with the configured secrets masked.
 */
export async function callToolIn(
  parts: ToolCallParts,
  id: string,
  input: Record<string, unknown>,
  given: CallOptions,
): Promise<RunResult> {
  const learningKey = given.learningKey ?? given.sessionKey;
  if (learningKey !== undefined) parts.learner?.observeCall(learningKey, id);
  // URIs are read first; resources already given need no await, and the session built of
  // them is made only when code of this process can read it (below).
  let options = namesUris(given) ? await parts.withResources(given) : given;
  const at = id.indexOf(':');
  const namespace = at > 0 ? id.slice(0, at) : '';
  if (namespace === USER_NAMESPACE) {
    // Whatever was put in the index under it: the user namespace is the store's, which holds
    // prompts and resources only.
    throw new ToolError(
      'not_found',
      `no tool "${id}": the ${USER_NAMESPACE} namespace holds prompts and resources, never tools`,
      { toolId: id },
    );
  }
  // Only `block` refuses calls; other modes add no wait to a call.
  if (parts.pinning?.blocks === true) {
    await guardCall(parts.pinning, parts.connectors.get(namespace), id);
  }
  const { index, connectors } = parts;
  const backend = index.hasTool(id) ? index.getTool(id).backend?.kind : undefined;
  // No such tool listed, and its server not connected: the server's state says why.
  const connector = backend === undefined ? connectors.get(namespace) : undefined;
  if (connector !== undefined && connector.client === undefined)
    throw parts.secrets.redactError(connector.unavailable());
  // An MCP tool without middleware runs no code of ours that reads the caller's session (its
  // resources included): the session is neither built nor entered (see `nested`), so a caller
  // may hand one that is made only when read.
  const mcpOnly = backend === 'mcp' && parts.middlewareCount === 0;
  if (!mcpOnly && options === given) options = await parts.withResources(options);
  const call: NestedCall = { kind: 'tool', id, namespace, backend: backend ?? 'unresolved' };
  // A call tags its MCP requests with a caller, so the server's requests during it come back
  // to whoever answers for it; a gateway brings its own, a library call gets one here.
  const own = options.meta?.[CALLER_META_KEY];
  const tagged = typeof own === 'string' || backend !== 'mcp';
  const caller = typeof own === 'string' ? own : nextCaller();
  const answerer = options.onUpstreamRequest;
  if (answerer !== undefined) parts.callAnswerers.set(caller, answerer);
  const { signal } = options;
  const run = parts.nested(options, call, (onProgress) => {
    const meta = withTraceContext(
      tagged ? options.meta : { ...options.meta, [CALLER_META_KEY]: caller },
    );
    const execute = () =>
      parts.runner.run(id, input, {
        ...(signal === undefined ? {} : { signal }),
        // Only asked for when someone listens: progress costs an MCP server a token and messages.
        ...(onProgress === undefined ? {} : { onProgress }),
        ...(meta === undefined ? {} : { meta }),
      });
    // A shared connection's MCP call without middleware runs no code of ours that reads the
    // session scope, so it skips entering one (as `nested` skips its async context): on Node 20
    // a process that never enters an async context makes its promises without hooks.
    return mcpOnly && connectors.connectionOf(namespace) === 'shared'
      ? execute()
      : connectors.inSession(namespace, options.sessionKey, execute);
  });
  try {
    const result = await run;
    const mcp = result.mcpResult;
    return mcp?.isError === true
      ? { ...result, mcpResult: parts.secrets.redactErrorResult(mcp) }
      : result;
  } catch (error) {
    throw parts.secrets.redactError(parts.closed() ? closedInstead(error, id) : error);
  } finally {
    if (answerer !== undefined) parts.callAnswerers.delete(caller);
  }
}
