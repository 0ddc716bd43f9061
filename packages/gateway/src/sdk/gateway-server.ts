import {
  ProtocolErrorCode,
  Server as SdkServer,
  type CallToolRequest,
  type CallToolResult,
  type Implementation,
  type InputRequiredResult,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type MessageExtraInfo,
  type RequestId,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { isJsonRpcMessage, withErrorMeta } from '../jsonrpc.js';
import { HandlerTable, type RequestHandler } from './handler-table.js';
import { makeLazy } from './lazy-collections.js';

export { answerable } from './answerable.js';

// The SDK steers users to McpServer, but a gateway needs the low-level Server: McpServer owns the
// names and lists that the gateway must map itself.
// eslint-disable-next-line @typescript-eslint/no-deprecated
const Server = SdkServer;

/** The SDK's low-level MCP server, as `createMcpServer` returns it. */
// eslint-disable-next-line @typescript-eslint/no-deprecated
export type McpServerInstance = SdkServer;

/** The SDK's own dispatch (private in its types), which {@link GatewayServer} calls straight. */
interface ProtocolDispatch {
  _onrequest(request: JSONRPCRequest, extra?: MessageExtraInfo): void;
  _onnotification(notification: JSONRPCNotification, extra?: MessageExtraInfo): void;
  _onresponse(response: JSONRPCResponse): void;
}

/** The server's own dispatch methods, if this SDK has them. */
function dispatchOf(server: object): ProtocolDispatch | undefined {
  const candidate = server as unknown as Partial<Record<keyof ProtocolDispatch, unknown>>;
  return typeof candidate._onrequest === 'function' &&
    typeof candidate._onnotification === 'function' &&
    typeof candidate._onresponse === 'function'
    ? (candidate as ProtocolDispatch)
    : undefined;
}

const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/**
 * `message` without members JSON-RPC does not define. The SDK's schemas are strict: a request
 * with one more member (`"extra": 1`) fails them all and is dropped unanswered, so the gateway is
 * lenient instead, as JSON-RPC servers commonly are, and serves what the message means.
 */
function withoutExtraMembers(message: JSONRPCMessage): JSONRPCMessage {
  for (const key in message) {
    if (MEMBERS.has(key)) continue;
    const bare: Record<string, unknown> = {};
    for (const known of MEMBERS) {
      if (known in message) bare[known] = (message as Record<string, unknown>)[known];
    }
    return bare as JSONRPCMessage;
  }
  return message;
}

/** The SDK's per-connection collections most sessions never write to (see `makeLazy`). */
const LAZY_FIELDS = [
  '_responseHandlers',
  '_progressHandlers',
  '_timeoutInfo',
  '_loggingLevels',
  '_pendingDebouncedNotifications',
  '_customSchemaRequestMethods',
];

/** The SDK's own `setRequestHandler`, which builds its wrappers at once. */
const sdkSetRequestHandler = (
  Server.prototype as unknown as {
    setRequestHandler: (this: object, method: string, ...rest: unknown[]) => void;
  }
).setRequestHandler;

/** The SDK's log level table of the first server made (see the constructor). */
let sharedSeverity: Map<unknown, unknown> | undefined;

/**
 * The SDK's `Server`, minus two costs every request paid: the SDK tells a message's kind by
 * trying its zod schemas in turn, and its `tools/call` handlers check the request twice and the
 * result again. Requests, notifications and responses are told apart by shape here (members
 * JSON-RPC does not define are dropped) and handed to the SDK's own dispatch, request params it
 * refuses are answered as -32602 in one line, and {@link GatewayServer.setToolCallHandler}
 * checks the request once. Every message goes the SDK's way when the SDK lacks the dispatch
 * methods this relies on or the transport had a handler of its own.
 */
export class GatewayServer extends Server {
  constructor(...args: ConstructorParameters<typeof Server>) {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the Server above
    super(...args);
    this.serverInfo = args[0];
    const self = this as unknown as { _requestHandlers?: unknown };
    // Handlers set from here on (and those the SDK set already) answer bad params as -32602, and
    // the gateway's per-session handlers are registered on first use (see HandlerTable).
    if (self._requestHandlers instanceof Map) {
      self._requestHandlers = new HandlerTable(
        self._requestHandlers as Map<string, RequestHandler>,
        this,
      );
    }
    // The SDK builds this same table of log levels for every instance; one serves them all.
    const levels = this as unknown as { LOG_LEVEL_SEVERITY?: unknown };
    if (levels.LOG_LEVEL_SEVERITY instanceof Map) {
      sharedSeverity ??= levels.LOG_LEVEL_SEVERITY;
      levels.LOG_LEVEL_SEVERITY = sharedSeverity;
    }
    // Written only when this server asks the client something, debounces a notification, or
    // is given a handler with schemas of its own (or never: the gateway keeps log levels itself).
    makeLazy(this, LAZY_FIELDS);
  }

  static {
    // The SDK's setRequestHandler builds its wrappers at once. Kept on the prototype (not a
    // per-instance field) so sessions share it, and patched rather than overridden so callers
    // keep the SDK's typed overloads.
    const deferring = function (this: GatewayServer, method: string, ...rest: unknown[]): void {
      const table = (this as unknown as { _requestHandlers?: unknown })._requestHandlers;
      const handler = rest[0];
      if (
        table instanceof HandlerTable &&
        rest.length === 1 &&
        typeof handler === 'function' &&
        !this.ownToolCall
      ) {
        // A capability the server lacks still fails here, where the handler is set.
        this.assertRequestHandlerCapability(method);
        if (table.defer(method, handler as RequestHandler)) return;
      }
      sdkSetRequestHandler.call(this, method, ...rest);
    };
    Object.defineProperty(GatewayServer.prototype, 'setRequestHandler', {
      value: deferring,
      writable: true,
      configurable: true,
    });
  }

  /** Registers a deferred handler the SDK's way; {@link HandlerTable} calls it on first use. */
  materialize(method: string, handler: unknown): void {
    sdkSetRequestHandler.call(this, method, handler);
  }

  /** The identity this server was made with, as a 2026-07-28 result's `_meta` names it. */
  readonly serverInfo: Implementation;

  /**
   * Refuses, before the SDK's dispatch, every request whose method `gate` names a reason for:
   * -32601 with that reason (the SDK's own refusal of a method another era removed says only
   * "Method not found").
   */
  refuseMethods(gate: (method: string) => string | undefined): void {
    const self = this as unknown as Partial<ProtocolDispatch>;
    const dispatch = self._onrequest;
    if (typeof dispatch !== 'function') return;
    self._onrequest = (request, extra) => {
      const reason = gate(request.method);
      if (reason === undefined) {
        dispatch.call(this, request, extra);
        return;
      }
      this.transport
        ?.send({
          jsonrpc: '2.0',
          id: request.id,
          error: { code: ProtocolErrorCode.MethodNotFound, message: reason },
        })
        .catch((error: unknown) =>
          this.onerror?.(error instanceof Error ? error : new Error(String(error))),
        );
    };
  }

  /**
   * Merges `meta` into the `data._meta` of every JSON-RPC error this server sends (the handlers'
   * and the SDK's own alike); set before {@link GatewayServer.connect}.
   */
  tagErrors(meta: Readonly<Record<string, unknown>>): void {
    this.errorMeta = meta;
  }

  private errorMeta: Readonly<Record<string, unknown>> | undefined;

  /**
   * Serves a `tools/call` request itself and returns `true`, or returns `false` for the SDK's
   * dispatch to serve it (see `call-lane.ts`): answered through `answer` when given (tagged
   * first), else through the server's transport. Set before {@link GatewayServer.connect}.
   */
  callLane:
    | ((
        request: JSONRPCRequest,
        extra?: MessageExtraInfo,
        answer?: (message: JSONRPCMessage) => Promise<void>,
      ) => boolean)
    | undefined;

  /**
   * `message` as this server's transport sends it: an error tagged as {@link tagErrors} said,
   * for answers written past the transport (a call lane's on the wire).
   */
  tagged(message: JSONRPCMessage): JSONRPCMessage {
    const meta = this.errorMeta;
    return meta !== undefined && 'error' in message ? withErrorMeta(message, meta) : message;
  }

  /**
   * The SDK's abort controllers of the requests being served, by request ID: a request served
   * outside its dispatch puts its own here, so `notifications/cancelled` and the connection's
   * close abort it as they abort the SDK's. `undefined` when this SDK keeps none.
   */
  requestControllers(): Map<RequestId, AbortController> | undefined {
    const map = (this as unknown as { _requestHandlerAbortControllers?: unknown })
      ._requestHandlerAbortControllers;
    return map instanceof Map ? (map as Map<RequestId, AbortController>) : undefined;
  }

  override async connect(transport: Transport): Promise<void> {
    const meta = this.errorMeta;
    if (meta !== undefined) {
      const send = transport.send.bind(transport);
      transport.send = (message, options) =>
        send('error' in message ? withErrorMeta(message, meta) : message, options);
    }
    const own = transport.onmessage;
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the Server above
    await super.connect(transport);
    const dispatch = dispatchOf(this);
    if (dispatch === undefined || own !== undefined) return;
    const sdkHandler = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (sdkHandler === undefined) return;
      if (!isJsonRpcMessage(message)) {
        sdkHandler(message, extra);
        return;
      }
      const bare = withoutExtraMembers(message);
      if (!('method' in bare)) dispatch._onresponse(bare);
      else if (!('id' in bare)) dispatch._onnotification(bare, extra);
      else if (bare.method !== 'tools/call' || this.callLane?.(bare, extra) !== true)
        dispatch._onrequest(bare, extra);
    };
  }

  /**
   * Closes the server; one that never got a transport (a per-request instance the SDK's entry
   * built, then answered without) runs its `onclose` too, so whatever it holds is let go.
   */
  override async close(): Promise<void> {
    const connected = this.transport !== undefined;
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the Server above
    await super.close();
    if (!connected) this.onclose?.();
  }

  /**
   * Serves `tools/call` with the request checked once and the result taken as `handler` built it
   * (the gateway builds it from results already validated on their way in).
   */
  setToolCallHandler(
    handler: (
      request: CallToolRequest,
      ctx: ServerContext,
    ) => Promise<CallToolResult | InputRequiredResult>,
  ): void {
    this.ownToolCall = true;
    try {
      this.setRequestHandler('tools/call', handler);
    } finally {
      this.ownToolCall = false;
    }
  }

  /** Set while {@link GatewayServer.setToolCallHandler} registers its handler. */
  private ownToolCall = false;

  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    // The SDK's wrapper checks a tools/call request again and its result; the gateway's own
    // handler (whose request the SDK has checked once already) goes unwrapped.
    if (method === 'tools/call' && this.ownToolCall) return handler;
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the Server above
    return super._wrapHandler(method, handler);
  }
}
