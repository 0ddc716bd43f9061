import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import { laneContext, plainCall, runLaneCall, type LaneCall } from '../call-lane.js';
import { isModernRequest, MODERN_PROTOCOL_VERSION } from '../eras.js';
import type { ToolItem } from '../items.js';
import type { GatewayHub } from '../hub.js';
import { newGatewayServer } from '../sdk/new-server.js';
import { toolCaller } from '../tool-call.js';

// As the SDK's per-request transport: a stream that waits long is kept open by comments.
const KEEP_ALIVE_MS = 15_000;
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/**
 * Takes one 2026-07-28 request for the lane: the function that serves it (and answers on the
 * response), or `undefined` for the SDK's way to serve it.
 */
export type HttpCallLane = (
  req: IncomingMessage,
  body: unknown,
) => ((res: ServerResponse, extra: MessageExtraInfo | undefined) => Promise<void>) | undefined;

/**
 * The call lane of 2026-07-28 requests over HTTP: a plain `tools/call` of a listed tool (see
 * `plainCall` in `call-lane.ts`), its `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers naming exactly that revision, method and tool, is served without a server, a
 * transport and web streams built for it (as the SDK's entry does for every request) and its
 * answer written on the response: JSON, or an event stream once a notification (progress, a log
 * message) precedes it, as the SDK's per-request transport writes them. The caller classified the
 * request with the SDK's classifier (which checks its envelope); anything else, or anything
 * unusual (a header the SDK would decode or refuse, a retry, search mode), goes the SDK's way.
 * A call is a session of its own (its own caller token, ended with the request), as the SDK's
 * way makes it; its input rounds are the hub's, as theirs are.
 */
export function httpCallLane(
  hub: GatewayHub,
  sourceOf: (req: IncomingMessage) => string | undefined,
): HttpCallLane | undefined {
  const { options } = hub;
  if (options.callLane === false) return undefined;
  // One server for every lane call: its identity, error tags and the SDK's request plumbing
  // (never connected: each call answers on its own response).
  const server = newGatewayServer(options);
  return (req, body) => {
    const request = body as JSONRPCRequest;
    // Read per call: a reload may change the mode.
    if (hub.options.mode === 'search') return undefined;
    if (request.method !== 'tools/call' || !hub.isNegotiated) return undefined;
    const { headers } = req;
    if (
      headers['mcp-protocol-version'] !== MODERN_PROTOCOL_VERSION ||
      headers['mcp-method'] !== 'tools/call'
    )
      return undefined;
    const call = plainCall(request.params, 'modern');
    if (call === undefined || headers['mcp-name'] !== call.name) return undefined;
    const item = hub.toolsNow()?.resolve(call.name);
    // The headers name the call exactly, so the SDK's classifier has only the body to judge.
    if (item === undefined || !isModernRequest(body)) return undefined;
    const source = sourceOf(req);
    return (res, extra) => serve(res, extra, request, call, item, source);
  };

  function serve(
    res: ServerResponse,
    extra: MessageExtraInfo | undefined,
    request: JSONRPCRequest,
    call: LaneCall,
    item: ToolItem,
    source: string | undefined,
  ): Promise<void> {
    const session = hub.attach(server, 'modern', source);
    const { id } = request;
    const controller = new AbortController();
    let answered = false;
    let keepAlive: NodeJS.Timeout | undefined;
    // A client gone before its answer cancels the call, as closing the SDK's server would.
    const gone = (): void => {
      if (!answered) controller.abort();
    };
    res.once('close', gone);
    const frame = (message: object): string =>
      `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    const notify = (notification: ServerNotification): Promise<void> => {
      if (answered || controller.signal.aborted) return Promise.resolve();
      if (!res.headersSent) {
        res.writeHead(200, SSE_HEADERS);
        keepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
        keepAlive.unref();
      }
      res.write(frame({ jsonrpc: '2.0', ...notification }));
      return Promise.resolve();
    };
    const answer = (message: JSONRPCMessage): Promise<void> | undefined => {
      answered = true;
      const tagged = server.tagged(message);
      if (res.headersSent) {
        clearInterval(keepAlive);
        res.end(frame(tagged));
      } else {
        // The one handler error the SDK answers with an HTTP status of its own.
        const missing =
          'error' in tagged &&
          tagged.error.code === (ProtocolErrorCode.MissingRequiredClientCapability as number);
        res
          .writeHead(missing ? 400 : 200, { 'content-type': 'application/json' })
          .end(JSON.stringify(tagged));
      }
      return undefined;
    };
    const context = laneContext(server, id, call, controller.signal, extra, notify);
    return runLaneCall({
      hub,
      server,
      session,
      callTool: toolCaller(hub, session, server, 'modern'),
      id,
      call,
      item,
      context,
      controller,
      wire: { notify, answer },
    }).finally(() => {
      clearInterval(keepAlive);
      res.off('close', gone);
      // An answer never written (the client went away) ends the response all the same.
      if (!res.writableEnded) res.end();
      hub.detach(session);
    });
  }
}
