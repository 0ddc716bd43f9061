import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '@toolplane/toolmodel';
import { answerable, type GatewayServer } from './sdk/gateway-server.js';
import { encodeModernResult } from './sdk/seam.js';
import { envelopeLogLevel, isModernRequest, MODERN_PROTOCOL_VERSION, type Era } from './eras.js';
import type { GatewayHub } from './hub.js';
import type { ToolItem } from './items.js';
import type { CallExtra, SessionState } from './session/state.js';
import type { ToolCaller } from './tool-call.js';

// The `_meta` keys MCP reserves for itself (a 2026 envelope, a task, …): the SDK's way serves them,
// but for a 2026-07-28 request's own envelope (below), which the lane lifts out as the SDK does.
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/** The envelope keys the SDK lifts out of a 2026-07-28 request's `_meta`, in its order. */
const ENVELOPE_KEYS: readonly string[] = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- still sent, and lifted by the SDK
  LOG_LEVEL_META_KEY,
];

// JSON-RPC's code for a thrown error without one, and the legacy code the SDK maps -32002 to.
const INTERNAL_ERROR = -32603;
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/** What a lane call runs with: the request's tool, arguments and `_meta`. */
export interface LaneCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The request's `_meta` as the handler sees it: no progress token, no 2026 envelope. */
  readonly meta: Record<string, unknown>;
  /** The `_meta` the SDK hands a handler as `ctx.mcpReq._meta` (envelope lifted out). */
  readonly handlerMeta: Record<string, unknown> | undefined;
  /** A 2026-07-28 request's envelope (`undefined` on 2025 requests). */
  readonly envelope: Record<string, unknown> | undefined;
  readonly progressToken: string | number | undefined;
}

/**
 * The `_meta` of a plain call split as the SDK splits it: the handler's `_meta` and its envelope,
 * or `undefined` when a key would make the SDK's way differ (a progress token on a 2025 call, a
 * reserved key that is not the 2026 envelope's, a `__proto__` key).
 */
function splitMeta(
  meta: Record<string, unknown>,
  era: Era,
): Pick<LaneCall, 'meta' | 'handlerMeta' | 'envelope' | 'progressToken'> | undefined {
  let enveloped = false;
  // The handler's _meta (the progress token in its place) and the same without the token.
  let rest: Record<string, unknown> | undefined;
  let own: Record<string, unknown> | undefined;
  let progressToken: string | number | undefined;
  for (const key in meta) {
    if (key === '__proto__') return undefined;
    const value = meta[key];
    if (era === 'modern' && ENVELOPE_KEYS.includes(key)) {
      enveloped = true;
      continue;
    }
    if (key.startsWith(RESERVED_META_PREFIX)) return undefined;
    if (key === 'progressToken') {
      // 2025 calls with progress go the SDK's way (their notifications ride its machinery).
      if (era === 'legacy' || (typeof value !== 'string' && typeof value !== 'number'))
        return undefined;
      progressToken = value;
    } else (own ??= {})[key] = value;
    (rest ??= {})[key] = value;
  }
  if (era === 'legacy') return { meta, handlerMeta: meta, envelope: undefined, progressToken };
  if (!enveloped || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION) return undefined;
  // The SDK lifts the envelope out of _meta in its key order, not the request's: made straight
  // from `meta` (a plain object, so the keys the loop saw are its own) with no copy in between.
  const envelope: Record<string, unknown> = {};
  for (const key of ENVELOPE_KEYS) if (Object.hasOwn(meta, key)) envelope[key] = meta[key];
  return { meta: own ?? {}, handlerMeta: rest, envelope, progressToken };
}

/**
 * The parts of a plain `tools/call`: a name, arguments that are a plain object, a `_meta` with no
 * key MCP reserves (bar, on 2026-07-28, the request's own envelope, which must name that
 * revision), no progress token on a 2025 call, nothing else in its params (a 2026 retry's
 * `requestState` goes the SDK's way), and no `__proto__` key where the SDK's schema would drop
 * it. `undefined` for anything else.
 */
export function plainCall(params: unknown, era: Era): LaneCall | undefined {
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
  else if (!isPlainObject(meta)) return undefined;
  const split = splitMeta(meta as Record<string, unknown>, era);
  if (split === undefined) return undefined;
  // Listed, not spread: a spread into a literal leaves V8 a slow dictionary-mode object.
  const { meta: own, handlerMeta, envelope, progressToken } = split;
  return {
    name,
    args: args as Record<string, unknown>,
    meta: own,
    handlerMeta,
    envelope,
    progressToken,
  };
}

/** A lane call's `ctx.mcpReq.requestState()`: never a retry, so never a state. */
const noRequestState = (): undefined => undefined;

/** The only message extra a lane call takes: none, or the caller's verified authorisation. */
function isPlainExtra(extra: MessageExtraInfo | undefined): boolean {
  if (extra === undefined) return true;
  for (const key in extra) if (key !== 'authInfo') return false;
  return true;
}

/** How a lane call talks to its client: its notifications before the answer, and the answer. */
export interface LaneWire {
  /** Sends a notification related to the call (progress, a log message). */
  readonly notify: (notification: ServerNotification) => Promise<void>;
  /** Writes the answer (never called for a call its client cancelled). */
  readonly answer: (message: JSONRPCMessage) => Promise<void> | undefined;
}

/**
 * The context a lane call's handler code reads, as the SDK would have built it: the request's
 * ID, `_meta` and signal, its notifications and requests to the client sent related to it (on
 * its own response stream), the session ID, the caller's authorisation and, on 2026-07-28, the
 * request's envelope (a lane call is never a retry: no `requestState`, no input responses).
 */
export function laneContext(
  server: GatewayServer,
  id: RequestId,
  call: LaneCall,
  signal: AbortSignal,
  extra: MessageExtraInfo | undefined,
  notify: LaneWire['notify'],
): CallExtra {
  const related = { relatedRequestId: id };
  const send = (request: unknown, schemaOrOptions?: unknown, options?: Record<string, unknown>) => {
    const sending = server.request.bind(server) as (...args: unknown[]) => Promise<unknown>;
    // As the SDK's ctx.mcpReq.send: a result schema, then options, or options alone.
    return schemaOrOptions !== undefined && '~standard' in (schemaOrOptions as object)
      ? sending(request, schemaOrOptions, { ...options, ...related })
      : sending(request, { ...(schemaOrOptions as object | undefined), ...related });
  };
  const _meta = call.handlerMeta;
  const { envelope } = call;
  // Two literals, not a spread into one: a spread leaves V8 a slow dictionary-mode object. A
  // 2025 call's context has no envelope keys at all, as the SDK's has none.
  const mcpReq =
    envelope === undefined
      ? { id, method: 'tools/call', _meta, signal, notify, send }
      : {
          id,
          method: 'tools/call',
          _meta,
          envelope,
          requestState: noRequestState,
          signal,
          notify,
          send,
        };
  const context = {
    sessionId: server.transport?.sessionId,
    mcpReq,
    http: extra?.authInfo === undefined ? undefined : { authInfo: extra.authInfo },
  };
  return context as unknown as CallExtra;
}

/** A failed call's JSON-RPC error answer, as the SDK's dispatch writes it. */
function errorAnswer(id: RequestId, error: unknown): JSONRPCMessage {
  const failure = answerable(error, 'tools/call') as Error & { code?: unknown };
  const { code, data } = failure as { code?: unknown; data?: unknown };
  const thrown = Number.isSafeInteger(code) ? (code as number) : INTERNAL_ERROR;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: thrown === RESOURCE_NOT_FOUND ? INVALID_PARAMS : thrown,
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as the SDK
      message: failure.message ?? 'Internal error',
      ...(data === undefined ? {} : { data }),
    },
  };
}

/** What {@link runLaneCall} runs: one resolved call on one session, in one era. */
export interface LaneRun {
  readonly hub: GatewayHub;
  readonly server: GatewayServer;
  readonly session: SessionState;
  readonly callTool: ToolCaller;
  readonly id: RequestId;
  readonly call: LaneCall;
  readonly item: ToolItem;
  readonly context: CallExtra;
  /** The request's controller (its signal is `context`'s): aborted when the client cancels. */
  readonly controller: AbortController;
  readonly wire: LaneWire;
}

/**
 * Runs a lane call as the session's `tools/call` handler would (a 2026-07-28 call as the first
 * leg of its input rounds, which start only when the upstream first asks) and writes its answer
 * as the SDK's dispatch would have: the result (on 2026-07-28 encoded for that revision) or the
 * JSON-RPC error; nothing for a call its client cancelled.
 */
export function runLaneCall(run: LaneRun): Promise<void> {
  const { hub, server, session, id, call, item, context, controller, wire } = run;
  const modern = session.era === 'modern';
  if (modern) session.logLevel = envelopeLogLevel(call.envelope);
  const caller = run.callTool(context, call.meta, call.progressToken);
  // Set when the call's input rounds cancelled it (not its client): its answer is still written.
  let ended = false;
  const result: Promise<CallToolResult | InputRequiredResult> = modern
    ? hub.rounds.startLazily(
        (signal, requestInput) => caller(item, call.args, { signal, requestInput }),
        { tool: call.name, arguments: call.args, refusal: hub.replayRefusal(item, call.name) },
        context,
        (why) => {
          if (controller.signal.aborted) return;
          ended = true;
          controller.abort(why);
        },
      )
    : caller(item, call.args);
  const write = (message: JSONRPCMessage): Promise<void> | undefined =>
    controller.signal.aborted && !ended ? undefined : wire.answer(message);
  return result
    .then(
      (value) =>
        write({
          result: modern ? encodeModernResult(value, server.serverInfo) : value,
          jsonrpc: '2.0',
          id,
        }),
      (error: unknown) => write(errorAnswer(id, error)),
    )
    .catch((error: unknown) => {
      server.onerror?.(new Error(`Failed to send response: ${String(error)}`));
    });
}

/**
 * The call lane of a session (a 2025 session once initialized, or a 2026-07-28 stdio
 * connection): serves a plain `tools/call` of a listed tool (see {@link plainCall}) without the
 * SDK's request machinery (its dispatch, the zod parse of the request, a context of a dozen
 * closures), and writes the JSON-RPC answer itself, as the SDK would have written it: the same
 * result, the same error, nothing for a call that was cancelled. Everything else goes the SDK's
 * way: 2025 progress tokens, tasks and reserved `_meta` keys, 2026 retries, search mode, a name
 * no listed tool has (the SDK's way looks the tools up again), anything unusual.
 */
export function callLane(
  server: GatewayServer,
  hub: GatewayHub,
  session: SessionState,
  callTool: ToolCaller,
): NonNullable<GatewayServer['callLane']> {
  const { era } = session;
  return (request, extra, wire) => {
    // Read per call: a reload may change the mode of a session already open.
    const search = hub.options.mode === 'search' || hub.options.mode === 'code';
    if (search || !hub.isNegotiated || !isPlainExtra(extra)) return false;
    if (era === 'legacy' ? !session.initialized : !isModernRequest(request)) return false;
    const call = plainCall(request.params, era);
    if (call === undefined) return false;
    const item = hub.toolsNow()?.resolve(call.name);
    const controllers = server.requestControllers();
    const transport = server.transport;
    if (item === undefined || controllers === undefined || transport === undefined) return false;
    const { id } = request;
    const controller = new AbortController();
    controllers.set(id, controller);
    const related = { relatedRequestId: id };
    const notify = (notification: ServerNotification): Promise<void> =>
      server.notification(notification, related);
    const context = laneContext(server, id, call, controller.signal, extra, notify);
    const answer = (message: JSONRPCMessage): Promise<void> | undefined =>
      wire === undefined ? transport.send(message) : wire(server.tagged(message));
    void runLaneCall({
      hub,
      server,
      session,
      callTool,
      id,
      call,
      item,
      context,
      controller,
      wire: { notify, answer },
    }).finally(() => {
      if (controllers.get(id) === controller) controllers.delete(id);
    });
    return true;
  };
}
