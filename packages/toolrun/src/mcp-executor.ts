import {
  DEFAULT_REQUEST_TIMEOUT_MSEC,
  SdkError,
  SdkErrorCode,
  type CallToolRequestParams,
  type CallToolResult,
  type RequestOptions,
  type Transport,
} from '@modelcontextprotocol/client';
import { MAX_TIMER_MS, ToolError, whenAborted } from '@toolplane/toolmodel';
import { abortError } from './errors.js';
import { mcpResultText } from './normalize.js';
import { progressRelay } from './progress-relay.js';
import type { ProgressListener, RunMeta } from './types.js';

/**
 * The part of an MCP client that an {@link McpExecutor} uses. The official SDK v2 `Client`
 * (`@modelcontextprotocol/client`) is one; so is anything with the same `callTool` and
 * `transport`.
 */
export interface McpCallClient {
  /** Sends `tools/call`; rejects with the SDK's `SdkError` on a timeout or a closed connection. */
  callTool(params: CallToolRequestParams, options?: RequestOptions): Promise<CallToolResult>;
  /** The connected transport; its progress notifications are read from `onmessage`. */
  readonly transport?: Transport | undefined;
}

/**
 * Where an {@link McpExecutor} finds the client of an MCP server: a record by server name, or a
 * function of the server name (possibly async, e.g. to connect lazily).
 */
export type McpClientSource =
  | Readonly<Record<string, McpCallClient>>
  | ((serverName: string) => McpCallClient | Promise<McpCallClient>);

/** Time limits of MCP requests, as the SDK applies them. */
export interface McpTimeouts {
  /** Per-request timeout in milliseconds (the SDK's default is 60 s). */
  readonly timeout?: number;
  /**
   * Restart the per-request timeout whenever the server reports progress (default `true`).
   * Setting it explicitly to `true` also requests progress when nobody listens to it.
   */
  readonly resetTimeoutOnProgress?: boolean;
  /** Upper bound on the whole request, progress or not, in milliseconds (default: none). */
  readonly maxTotalTimeout?: number;
}

/** Options of {@link createMcpExecutor}. */
export interface McpExecutorOptions extends McpTimeouts {
  readonly clients: McpClientSource;
}

/** Options of one {@link McpExecutor.callTool} call; time limits override the executor's. */
export interface McpCallOptions extends McpTimeouts {
  /** Cancels the request; the server receives `notifications/cancelled`. */
  readonly signal?: AbortSignal;
  /** Receives the server's progress notifications; setting it requests them. */
  readonly onProgress?: ProgressListener;
  /** Sent as the request's `_meta`. */
  readonly meta?: RunMeta;
}

/** Calls tools on MCP servers through {@link McpCallClient}s; see {@link createMcpExecutor}. */
export interface McpExecutor {
  /**
   * Calls `toolName` (the tool's MCP name, not its namespaced ID) on `serverName`.
   *
   * @throws {ToolError} `cancelled` as soon as the signal aborts (the server is told; the runner
   * relies on it and does not race MCP calls against their signal), `timeout` when
   * a time limit passes, `execution` when the server is unknown, fails, goes away, or returns a
   * result with `isError: true` (its text is the message; the result is the `cause`). Through
   * {@link createRunner} these errors keep their code, message and `cause`: the runner adds the
   * tool ID, backend and `op: 'execute'` instead of wrapping them, so the `isError` result is
   * the runner's error's `cause` too. `invalid_argument` when the server's client is a v1 SDK
   * (`@modelcontextprotocol/sdk`) `Client`: pass a v2 one from `@modelcontextprotocol/client`,
   * and when the arguments have no JSON text (a cycle, a bigint, nesting past the stack).
   */
  callTool(
    serverName: string,
    toolName: string,
    args: unknown,
    options?: McpCallOptions,
  ): Promise<CallToolResult>;
}

/**
 * How many requests in flight may hold a caller's signal itself, each with the SDK's listener on
 * it: few enough, with `whenAborted`'s one and a caller's own, to stay under Node 20's warning at
 * eleven listeners.
 */
const HANDED_OVER_MAX = 4;
// Requests in flight that hold a caller's signal itself, by signal.
const handedOver = new WeakMap<AbortSignal, number>();

function handOverEnded(signal: AbortSignal): void {
  const count = (handedOver.get(signal) ?? 1) - 1;
  if (count === 0) handedOver.delete(signal);
  else handedOver.set(signal, count);
}

let tokenSeq = 0;

function lookupClient(
  source: McpClientSource,
  serverName: string,
): McpCallClient | Promise<McpCallClient> {
  if (typeof source === 'function') return source(serverName);
  // Own properties only: a server named "toString" must not find Object.prototype.toString.
  const client = Object.hasOwn(source, serverName) ? source[serverName] : undefined;
  if (client === undefined) {
    const known = Object.keys(source).join(', ') || 'none';
    throw new ToolError(
      'execution',
      `no MCP client for server "${serverName}" (known servers: ${known}); add it to createMcpExecutor({ clients })`,
    );
  }
  return client;
}

/**
 * A `Client` of the v1 SDK (`@modelcontextprotocol/sdk`): an SDK client (it has
 * `getServerVersion`) without v2's `getNegotiatedProtocolVersion`. Its `callTool(params,
 * resultSchema, options)` would take our request options for a result schema and fail with
 * "v3Schema.safeParse is not a function".
 */
function isV1Client(client: McpCallClient): boolean {
  const probe = client as McpCallClient & Record<string, unknown>;
  return (
    typeof probe.getServerVersion === 'function' &&
    typeof probe.getNegotiatedProtocolVersion !== 'function'
  );
}

function v1ClientError(serverName: string): ToolError {
  return new ToolError(
    'invalid_argument',
    `the client for server "${serverName}" is a v1 @modelcontextprotocol/sdk Client; pass a v2 Client from @modelcontextprotocol/client (npm install @modelcontextprotocol/client)`,
  );
}

/**
 * `invalid_argument` when a call failed because its arguments have no JSON text (a cycle, a
 * bigint, nesting past the stack): the transport's `JSON.stringify` threw before anything was
 * sent, which is the caller's mistake, not the server's. Checked only once a call has failed.
 */
function notJsonArguments(error: unknown, args: unknown, where: string): ToolError | undefined {
  if (ToolError.isInstance(error) || SdkError.isInstance(error)) return undefined;
  try {
    JSON.stringify(args);
    return undefined;
  } catch (cause) {
    const why = cause instanceof RangeError ? 'nested too deeply' : (cause as Error).message;
    return new ToolError(
      'invalid_argument',
      `the arguments of ${where} are not JSON (${why.split('\n')[0] ?? why}); pass only objects, arrays, strings, numbers, booleans and null`,
      { cause },
    );
  }
}

function fromMcpError(error: unknown, serverName: string, toolName: string): ToolError {
  if (ToolError.isInstance(error)) return error;
  const where = `MCP tool "${toolName}" on server "${serverName}"`;
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
    return new ToolError('timeout', `${where} timed out: ${error.message}`, { cause: error });
  }
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.ConnectionClosed) {
    return new ToolError(
      'execution',
      `${where} failed: the connection closed before it answered (did the server exit?)`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError('execution', `${where} failed: ${message}`, { cause: error });
}

/**
 * Creates an {@link McpExecutor} over MCP clients (the SDK v2 `Client`): progress notifications become
 * progress events, an abort sends `notifications/cancelled`, and time limits follow
 * {@link McpTimeouts}. Pass it to {@link createRunner} as `mcp`.
 */
export function createMcpExecutor(options: McpExecutorOptions): McpExecutor {
  const { clients } = options;
  const defaults: McpTimeouts = {
    timeout: options.timeout,
    resetTimeoutOnProgress: options.resetTimeoutOnProgress,
    maxTotalTimeout: options.maxTotalTimeout,
  };

  async function callTool(
    serverName: string,
    toolName: string,
    args: unknown,
    call: McpCallOptions = {},
  ): Promise<CallToolResult> {
    const signal = call.signal;
    if (signal?.aborted) throw abortError(signal);
    const found = lookupClient(clients, serverName);
    // Awaited only when it is a promise: a tick less for every call to a connected client.
    const client = found instanceof Promise ? await found : found;
    if (signal?.aborted) throw abortError(signal);
    if (isV1Client(client)) throw v1ClientError(serverName);

    const onProgress = call.onProgress;
    const reset = call.resetTimeoutOnProgress ?? defaults.resetTimeoutOnProgress;
    const perRequest = call.timeout ?? defaults.timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC;
    const maxTotal = call.maxTotalTimeout ?? defaults.maxTotalTimeout;
    // Progress is requested when someone listens, or when it was asked for to keep a long
    // request alive; otherwise the request goes out exactly as a bare client.callTool would.
    const relay = onProgress !== undefined || reset === true ? progressRelay(client) : undefined;
    const params: { name: string; arguments: Record<string, unknown>; _meta?: RunMeta } = {
      name: toolName,
      arguments: (args ?? {}) as Record<string, unknown>,
    };
    if (call.meta !== undefined) params._meta = call.meta;

    // The SDK adds a listener to the signal of every request in flight, and a fresh signal's
    // first listener costs ~3 µs on Node 20. So the caller's signal goes to the SDK as it is
    // while few of its requests are in flight; past that, each request gets a signal of its own
    // under the one listener `whenAborted` keeps on the caller's (a signal shared by many
    // concurrent calls then never makes Node 20 warn of a leak). A timeout that progress resets,
    // kept here, must abort the request too: then it always has a signal of its own.
    const direct =
      relay === undefined &&
      signal !== undefined &&
      (handedOver.get(signal) ?? 0) < HANDED_OVER_MAX;
    const controller =
      relay !== undefined || (signal !== undefined && !direct) ? new AbortController() : undefined;
    const stopForwarding =
      signal !== undefined && controller !== undefined
        ? whenAborted(signal, () => {
            controller.abort(signal.reason);
          })
        : undefined;
    if (direct) handedOver.set(signal, (handedOver.get(signal) ?? 0) + 1);

    let token: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const request: RequestOptions = {};
    const requestSignal = direct ? signal : controller?.signal;
    if (requestSignal !== undefined) request.signal = requestSignal;
    if (relay === undefined || controller === undefined) {
      request.timeout = perRequest;
      request.maxTotalTimeout = maxTotal;
    } else {
      // Progress arrives through the relay, not the SDK, so the per-request timeout that
      // progress resets is kept here; the SDK only enforces the total.
      const inner = controller;
      const started = performance.now();
      const expire = (why: string): void => {
        inner.abort(
          new ToolError('timeout', `MCP tool "${toolName}" on server "${serverName}" ${why}`),
        );
      };
      const arm = (): void => {
        timer = setTimeout(() => {
          expire(`did not answer or report progress within ${perRequest} ms`);
        }, perRequest);
      };
      arm();
      token = `toolplane-${++tokenSeq}`;
      params._meta = { ...call.meta, progressToken: token };
      relay.set(token, (event) => {
        if (reset !== false && !inner.signal.aborted) {
          clearTimeout(timer);
          if (maxTotal !== undefined && performance.now() - started >= maxTotal) {
            expire(`did not finish within its maximum total time of ${maxTotal} ms`);
            return;
          }
          arm();
        }
        onProgress?.(event);
      });
      request.timeout = maxTotal ?? MAX_TIMER_MS;
    }

    let result: CallToolResult;
    try {
      result = await client.callTool(params, request);
    } catch (error) {
      if (requestSignal?.aborted === true) throw abortError(requestSignal);
      const where = `MCP tool "${toolName}" on server "${serverName}"`;
      throw (
        notJsonArguments(error, params.arguments, where) ??
        fromMcpError(error, serverName, toolName)
      );
    } finally {
      stopForwarding?.();
      if (direct) handOverEnded(signal);
      if (token !== undefined) relay?.delete(token);
      clearTimeout(timer);
    }
    if (result.isError === true) {
      const text = mcpResultText(result);
      throw new ToolError(
        'execution',
        text.length > 0
          ? text
          : `MCP tool "${toolName}" on server "${serverName}" returned an error without text`,
        { cause: result },
      );
    }
    return result;
  }

  return { callTool };
}
