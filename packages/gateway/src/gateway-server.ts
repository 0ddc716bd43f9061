import { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcMessage } from './jsonrpc.js';

// The SDK steers users to McpServer, but a gateway needs the low-level Server: McpServer owns the
// names and lists that the gateway must map itself.
// eslint-disable-next-line @typescript-eslint/no-deprecated
const Server = SdkServer;

/** The SDK's own dispatch, which {@link GatewayServer} calls straight. */
interface ProtocolDispatch {
  _onrequest(request: JSONRPCRequest, extra?: MessageExtraInfo): void;
  _onnotification(notification: JSONRPCNotification): void;
}

/** The server's own dispatch methods (private in the SDK's types), if this SDK has them. */
function dispatchOf(server: object): ProtocolDispatch | undefined {
  const candidate = server as unknown as Partial<Record<keyof ProtocolDispatch, unknown>>;
  return typeof candidate._onrequest === 'function' &&
    typeof candidate._onnotification === 'function'
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

/**
 * A handler's failure as the client should read it. The SDK parses a request's params with zod
 * and answers a mismatch as -32603 with the zod issues dumped as JSON: it is -32602 (invalid
 * params) with one line naming the first problem. An `McpError`'s message carries an
 * `MCP error <code>:` prefix that the client's own McpError repeats: it goes without.
 */
function answerable(error: unknown, method: string): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  // zod names it `ZodError`, its core (which the SDK uses) `$ZodError`.
  if (/^\$?ZodError$/.test(error.name)) return invalidParams(error, method);
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (typeof code !== 'number') return error;
  const prefix = `MCP error ${String(code)}: `;
  if (!error.message.startsWith(prefix)) return error;
  return new JsonRpcError(code, error.message.slice(prefix.length), data);
}

function invalidParams(error: Error, method: string): Error {
  const issues = (error as Error & { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  const first = issues?.[0];
  if (first === undefined) return error;
  const path = first.path.map(String).join('.');
  const more = issues !== undefined && issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new JsonRpcError(
    ErrorCode.InvalidParams,
    `${method}: ${path === '' ? 'the request' : path}: ${first.message}${more}`,
  );
}

/** A JSON-RPC error answer whose message is sent as it is (no `MCP error` prefix). */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type RequestHandler = (request: JSONRPCRequest, extra: unknown) => Promise<unknown>;

/** The SDK's table of request handlers, each wrapped as it is set to answer failures clearly. */
class ParamsCheckedHandlers extends Map<string, RequestHandler> {
  override set(method: string, handler: RequestHandler): this {
    const fail = (error: unknown): Promise<never> => Promise.reject(answerable(error, method));
    return super.set(method, (request, extra) => {
      try {
        return handler(request, extra).catch(fail);
      } catch (error) {
        // The SDK parses the params before calling the handler, and throws at once.
        return fail(error);
      }
    });
  }
}

/**
 * The SDK's `Server`, minus two costs every request paid: the SDK tells a message's kind by
 * trying its zod schemas in turn (a request first fails as two kinds of response), and its
 * `tools/call` handlers parse the request twice and the result again. Requests and notifications
 * are told apart by shape here (members JSON-RPC does not define are dropped) and handed to the
 * SDK's own dispatch, request params it refuses are answered as -32602 in one line, and
 * {@link GatewayServer.setToolCallHandler} parses the request once. Everything else (unusual
 * messages, responses, other methods) goes the SDK's way, and so does every message when the
 * SDK lacks the dispatch methods this relies on or the transport had a handler of its own.
 */
export class GatewayServer extends Server {
  constructor(...args: ConstructorParameters<typeof Server>) {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the Server above
    super(...args);
    const self = this as unknown as { _requestHandlers?: unknown };
    // Handlers set from here on (and those the SDK set already) answer bad params as -32602.
    if (self._requestHandlers instanceof Map) {
      self._requestHandlers = new ParamsCheckedHandlers(
        self._requestHandlers as Map<string, RequestHandler>,
      );
    }
  }

  override async connect(transport: Transport): Promise<void> {
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
      if (!('method' in bare)) sdkHandler(bare, extra);
      else if ('id' in bare) dispatch._onrequest(bare, extra);
      else dispatch._onnotification(bare);
    };
  }

  /**
   * Serves `tools/call` with the request parsed once and the result taken as `handler` built it
   * (the gateway builds it from results already validated on their way in).
   */
  setToolCallHandler(
    handler: (
      request: CallToolRequest,
      extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    ) => Promise<CallToolResult>,
  ): void {
    Protocol.prototype.setRequestHandler.call(this, CallToolRequestSchema, handler);
  }
}
