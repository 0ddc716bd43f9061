import type {
  CallToolResult,
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '@toolplane/toolmodel';
import { answerable, type GatewayServer } from './sdk/gateway-server.js';
import type { GatewayHub } from './hub.js';
import type { CallExtra, SessionState } from './session/state.js';
import type { ToolCaller } from './tool-call.js';

// The `_meta` keys MCP reserves for itself (a 2026 envelope, a task, …): the SDK's way serves them.
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

// JSON-RPC's code for a thrown error without one, and the legacy code the SDK maps -32002 to.
const INTERNAL_ERROR = -32603;
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/** Whether `meta` is a plain `_meta` the SDK would hand the handler as it came. */
function isPlainMeta(meta: Record<string, unknown>): boolean {
  for (const key in meta) {
    if (key === 'progressToken' || key === '__proto__' || key.startsWith(RESERVED_META_PREFIX))
      return false;
  }
  return true;
}

/** What a lane call runs with: the request's tool, arguments and `_meta`. */
interface LaneCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
}

/**
 * The parts of a plain 2025-era `tools/call`: a name, arguments that are a plain object, a
 * `_meta` with no progress token and no key MCP reserves, nothing else in its params, and no
 * `__proto__` key where the SDK's schema would drop it. `undefined` for anything else.
 */
function plainCall(params: unknown): LaneCall | undefined {
  if (!isPlainObject(params)) return undefined;
  let name: unknown;
  let args: unknown;
  let meta: unknown;
  for (const key in params) {
    if (key === 'name') name = params.name;
    else if (key === 'arguments') args = params.arguments;
    else if (key === '_meta') meta = params._meta;
    else return undefined;
  }
  if (typeof name !== 'string') return undefined;
  if (args === undefined) args = {};
  else if (!isPlainObject(args) || Object.hasOwn(args, '__proto__')) return undefined;
  if (meta === undefined) meta = {};
  else if (!isPlainObject(meta) || !isPlainMeta(meta)) return undefined;
  return { name, args: args as Record<string, unknown>, meta: meta as Record<string, unknown> };
}

/** The only message extra a lane call takes: none, or the caller's verified authorisation. */
function isPlainExtra(extra: MessageExtraInfo | undefined): boolean {
  if (extra === undefined) return true;
  for (const key in extra) if (key !== 'authInfo') return false;
  return true;
}

/**
 * The context a lane call's handler code reads, as the SDK would have built it: the request's
 * ID and signal, its notifications and requests to the client sent related to it (on its own
 * response stream), the session ID and the caller's authorisation.
 */
function laneContext(
  server: GatewayServer,
  id: RequestId,
  meta: Record<string, unknown>,
  signal: AbortSignal,
  extra: MessageExtraInfo | undefined,
): CallExtra {
  const related = { relatedRequestId: id };
  const context = {
    sessionId: server.transport?.sessionId,
    mcpReq: {
      id,
      method: 'tools/call',
      _meta: meta,
      signal,
      notify: (notification: Parameters<GatewayServer['notification']>[0]) =>
        server.notification(notification, related),
      send: (request: unknown, schemaOrOptions?: unknown, options?: Record<string, unknown>) => {
        const send = server.request.bind(server) as (...args: unknown[]) => Promise<unknown>;
        // As the SDK's ctx.mcpReq.send: a result schema, then options, or options alone.
        return schemaOrOptions !== undefined && '~standard' in (schemaOrOptions as object)
          ? send(request, schemaOrOptions, { ...options, ...related })
          : send(request, { ...(schemaOrOptions as object | undefined), ...related });
      },
    },
    http: extra?.authInfo === undefined ? undefined : { authInfo: extra.authInfo },
  };
  return context as unknown as CallExtra;
}

/**
 * The call lane of a 2025-era session: serves a plain `tools/call` of a listed tool (see
 * {@link plainCall}) without the SDK's request machinery (its dispatch, the zod parse of the
 * request, a context of a dozen closures), and writes the JSON-RPC answer itself, as the SDK
 * would have written it: the same result, the same error, nothing for a call that was
 * cancelled. Everything else, and everything before the session is initialized, goes the SDK's
 * way: progress tokens, tasks and reserved `_meta` keys, search mode, a name no listed tool has
 * (the SDK's way looks the tools up again), anything unusual.
 */
export function callLane(
  server: GatewayServer,
  hub: GatewayHub,
  session: SessionState,
  callTool: ToolCaller,
): NonNullable<GatewayServer['callLane']> {
  const search = hub.options.mode === 'search' || hub.options.mode === 'code';
  return (request, extra, wire) => {
    if (search || !session.initialized || !hub.isNegotiated || !isPlainExtra(extra)) return false;
    const call = plainCall(request.params);
    if (call === undefined) return false;
    const item = hub.toolsNow()?.resolve(call.name);
    const controllers = server.requestControllers();
    const transport = server.transport;
    if (item === undefined || controllers === undefined || transport === undefined) return false;
    const { id } = request;
    const controller = new AbortController();
    controllers.set(id, controller);
    const context = laneContext(server, id, call.meta, controller.signal, extra);
    const answer = (message: JSONRPCMessage): Promise<void> | undefined => {
      if (controller.signal.aborted) return undefined;
      return wire === undefined ? transport.send(message) : wire(server.tagged(message));
    };
    callTool(context, call.meta)(item, call.args)
      .then(
        (result: CallToolResult) => answer({ result, jsonrpc: '2.0', id }),
        (error: unknown) => {
          const failure = answerable(error, 'tools/call') as Error & { code?: unknown };
          const { code, data } = failure as { code?: unknown; data?: unknown };
          const thrown = Number.isSafeInteger(code) ? (code as number) : INTERNAL_ERROR;
          return answer({
            jsonrpc: '2.0',
            id,
            error: {
              code: thrown === RESOURCE_NOT_FOUND ? INVALID_PARAMS : thrown,
              // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as the SDK
              message: failure.message ?? 'Internal error',
              ...(data === undefined ? {} : { data }),
            },
          });
        },
      )
      .catch((error: unknown) => {
        server.onerror?.(new Error(`Failed to send response: ${String(error)}`));
      })
      .finally(() => {
        if (controllers.get(id) === controller) controllers.delete(id);
      });
    return true;
  };
}
