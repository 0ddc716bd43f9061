import { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
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

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether a well-formed JSON-RPC message is a request or a notification exactly as the SDK's
 * (strict) schemas accept them, i.e. with no member besides `jsonrpc`, `id`, `method` and `params`.
 */
function kindOf(message: JSONRPCMessage): 'request' | 'notification' | undefined {
  if (!('method' in message)) return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  return 'id' in message ? 'request' : 'notification';
}

/**
 * The SDK's `Server`, minus two costs every request paid: the SDK tells a message's kind by
 * trying its zod schemas in turn (a request first fails as two kinds of response), and its
 * `tools/call` handlers parse the request twice and the result again. Requests and notifications
 * are told apart by shape here and handed to the SDK's own dispatch, and
 * {@link GatewayServer.setToolCallHandler} parses the request once. Everything else (unusual
 * messages, responses, other methods) goes the SDK's way, and so does every message when the
 * SDK lacks the dispatch methods this relies on or the transport had a handler of its own.
 */
export class GatewayServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    const own = transport.onmessage;
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the Server above
    await super.connect(transport);
    const dispatch = dispatchOf(this);
    if (dispatch === undefined || own !== undefined) return;
    const sdkHandler = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const kind = isJsonRpcMessage(message) ? kindOf(message) : undefined;
      if (kind === undefined || sdkHandler === undefined) {
        sdkHandler?.(message, extra);
      } else if (kind === 'request') {
        dispatch._onrequest(message as JSONRPCRequest, extra);
      } else {
        dispatch._onnotification(message as JSONRPCNotification);
      }
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
