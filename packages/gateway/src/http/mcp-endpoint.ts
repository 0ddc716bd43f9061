import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  ProtocolErrorCode,
  type InboundHttpRequest,
  type RequestId,
} from '@modelcontextprotocol/server';
import type { OAuthGate } from '../auth/oauth-gate.js'; // OAuth (auth/)
import {
  accepts,
  checkPostHeaders,
  checkProtocolVersion,
  checkRequestId,
  finished,
  HttpError,
  readJson,
  toPost,
  writeJson,
  type Post,
} from './request.js';
import { SessionTable, type HttpSession } from './sessions.js';
import { HttpServerTransport } from './transport.js';
import type { InFlight } from './drain.js';
import { httpCallLane } from './modern-lane.js';
import { toWebRequest, writeWebResponse } from './fetch.js';
import { claimsModernEra, legacyClaimRefusal } from '../eras.js';
import { inexactParams } from '../inexact-params.js';
import { withErrorMeta } from '../jsonrpc.js';
import type { GatewayHub } from '../hub.js';
import { createSessionServer } from '../server.js';

/** What the MCP endpoint is built with: the hub, its bounds and the gateway's shared parts. */
export interface McpEndpointOptions {
  readonly hub: GatewayHub;
  readonly maxBody: number;
  /** Most 2025 sessions open at once, and most 2026-07-28 requests served at once. */
  readonly maxSessions: number;
  readonly idleMs: number;
  /** Serve every 2025-era POST with a server of its own and no session (POST only). */
  readonly stateless: boolean;
  readonly oauth: OAuthGate | undefined;
  /** The `_meta` every JSON-RPC error the gateway writes carries (its instance), if any. */
  readonly errorMeta: Readonly<Record<string, unknown>> | undefined;
  /** How long a POST's answer waits for its responses before it becomes an SSE stream. */
  readonly streamAfterMs: number;
  /** Requests being answered, for the drain (a listen stream is taken out of it). */
  readonly inFlight: InFlight;
  /** The source a request counts against (`SourceLimits.sourceOf`): its calls' `Session.source`. */
  readonly sourceOf: (req: IncomingMessage) => string;
}

/** The MCP endpoint of an HTTP gateway: what it serves, and what it holds open. */
export interface McpEndpoint {
  /** Serves one request to the endpoint's path (past the access checks). */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** How many 2025 sessions are open. */
  readonly sessionCount: () => number;
  /** How many 2026-07-28 requests are being served. */
  readonly modernInFlight: () => number;
  /** Closes the 2026 entry's streams and every session, and stops hearing the hub. */
  readonly close: () => Promise<void>;
}

/**
 * The MCP endpoint: 2025-era requests in sessions (one server and transport each, or one per
 * request when stateless), 2026-07-28 requests each by a server of its own through the SDK's
 * entry (which answers `server/discover`, its version and header checks and
 * `subscriptions/listen`), and a plain 2026 `tools/call` on the call lane, past that entry.
 */
export function mcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { hub, maxBody, maxSessions, oauth, errorMeta, inFlight } = options;
  // `''` is a connection already gone: no source to share.
  const sourceOf = (req: IncomingMessage) => options.sourceOf(req) || undefined;
  const sessions = new SessionTable({ maxSessions, idleMs: options.idleMs });
  // The source of each 2026-07-28 request handed to the SDK, for the server made for it.
  const sourceByRequest = new WeakMap<Request, string | undefined>();
  const modern = createMcpHandler(
    ({ era, requestInfo }) =>
      createSessionServer(hub, era, requestInfo && sourceByRequest.get(requestInfo)),
    {
      legacy: 'reject',
      maxRequestBodySize: maxBody,
      maxSubscriptions: maxSessions,
    },
  );
  // Resource updates a listen stream's filter named (hub.listen holds their subscriptions).
  const stopUpdates = hub.listeners.onUpdate((uri) => {
    modern.notify.resourceUpdated(uri);
  });
  const stopListening = hub.onListChange((kinds) => {
    for (const kind of kinds) {
      if (kind === 'tools') modern.notify.toolsChanged();
      else if (kind === 'prompts') modern.notify.promptsChanged();
      else modern.notify.resourcesChanged();
    }
  });
  let modernInFlight = 0;
  // Plain 2026-07-28 calls, served past the SDK's entry.
  const lane = httpCallLane(hub, sourceOf);
  const transportOptions = {
    streamAfterMs: options.streamAfterMs,
    ...(errorMeta === undefined ? {} : { errorMeta }),
  };

  const busy = (what: string): HttpError =>
    new HttpError(
      503,
      ProtocolErrorCode.InternalError,
      `the gateway is serving ${String(maxSessions)} ${what}; retry shortly`,
    );

  /** Serves a 2026-07-28 request: one server for it alone, as many at once as sessions. */
  const serveModern = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if (modernInFlight >= maxSessions) throw busy('requests');
    modernInFlight++;
    try {
      const release = await hub.listen(body);
      if (release !== undefined) res.once('close', release);
      const request = toWebRequest(req, endpointUrl(req), { res });
      sourceByRequest.set(request, sourceOf(req));
      const response = await modern.fetch(request, {
        parsedBody: body,
        ...oauth?.messageExtra(req), // OAuth (auth/)
      });
      // The SDK's entry answers some requests itself (a bad version or header): tagged here.
      await writeWebResponse(
        res,
        errorMeta === undefined || response.ok ? response : await withMetaIn(response, errorMeta),
      );
    } finally {
      modernInFlight--;
    }
  };

  const openSession = async (
    owner: string | undefined,
    source: string | undefined,
  ): Promise<HttpSession> => {
    if (!sessions.makeRoom()) {
      throw new HttpError(
        503,
        ProtocolErrorCode.InternalError,
        `the gateway has ${String(maxSessions)} sessions, all busy; retry shortly`,
      );
    }
    const id = randomUUID();
    const server = createSessionServer(hub, 'legacy', source);
    const transport = new HttpServerTransport(id, transportOptions);
    const session: HttpSession = { transport, server, owner, busy: 0 };
    transport.onclose = () => {
      sessions.delete(id);
    };
    await server.connect(transport);
    sessions.add(id, session);
    return session;
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, post: Post) => {
    const server = createSessionServer(hub, 'legacy', sourceOf(req));
    const transport = new HttpServerTransport(undefined, transportOptions);
    res.once('close', () => {
      void server.close();
    });
    await server.connect(transport);
    transport.handlePost(res, post, oauth?.messageExtra(req)); // OAuth (auth/)
  };

  /**
   * The session a request names (at once, with no tick to wait); a new one for an initialize
   * request that names none.
   */
  const sessionFor = (
    req: IncomingMessage,
    post: Post | undefined,
  ): HttpSession | Promise<HttpSession> => {
    // OAuth (auth/): a session is the caller's that opened it, to anyone else unknown.
    const owner = oauth?.ownerOf(req);
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.use(id, owner);
      if (session === undefined) {
        throw new HttpError(
          404,
          ProtocolErrorCode.InvalidRequest,
          'the session is unknown or has ended; initialize a new one',
        );
      }
      if (
        post?.messages.some((m) => (m as { method?: unknown } | null)?.method === 'initialize') ===
        true
      ) {
        throw new HttpError(
          400,
          ProtocolErrorCode.InvalidRequest,
          'this session is already initialized',
        );
      }
      checkProtocolVersion(req);
      return session;
    }
    if (post === undefined || !post.messages.some((m) => isInitializeRequest(m))) {
      throw new HttpError(
        400,
        ProtocolErrorCode.InvalidRequest,
        'no session; send an initialize request first',
      );
    }
    if (post.messages.length > 1) {
      throw new HttpError(
        400,
        ProtocolErrorCode.InvalidRequest,
        'initialize must be sent on its own',
      );
    }
    return openSession(owner, sourceOf(req));
  };

  const servePost = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    checkPostHeaders(req);
    const { text, value: body } = await readJson(req, maxBody);
    checkRequestId(body);
    // A request whose params lost an integer to the parse is refused before any era serves it
    // (a batch's in its answer, by the transport; an answer of the client's reaches the
    // session's transport, which hands the server an error in its place).
    const inexact = inexactParams(text);
    const request =
      !Array.isArray(body) && (body as { method?: unknown } | null)?.method !== undefined;
    const refusal = request ? inexact?.(body) : undefined;
    if (refusal !== undefined) {
      const { id } = body as { id: RequestId };
      const answer = {
        jsonrpc: '2.0',
        id,
        error: { code: ProtocolErrorCode.InvalidParams, message: refusal },
      };
      writeJson(res, 200, errorMeta === undefined ? answer : withErrorMeta(answer, errorMeta));
      return;
    }
    // A subscriptions/listen stream lasts until closed: the drain does not wait for it.
    if ((body as { method?: unknown } | null)?.method === 'subscriptions/listen')
      inFlight.untrack(res);
    // A 2026-07-28 request carries its version in _meta (and the headers); anything else is
    // the 2025 era's, served in sessions as before. A plain call goes on the lane (counted as
    // the SDK's way counts its requests); anything else the SDK's classifier routes.
    const modernClaim = claimsModernEra(req.headers['mcp-protocol-version'], body);
    const laned = modernClaim && modernInFlight < maxSessions ? lane?.(req, body) : undefined;
    const route =
      laned === undefined && modernClaim
        ? classifyInboundRequest({ httpMethod: 'POST', ...standardHeaders(req), body })
        : undefined;
    // A request naming a 2025 revision in its _meta: served where that era is (a session, or
    // the stateless mode), else told how to reach it, never that the gateway cannot speak it.
    const legacyClaim = route === undefined ? undefined : legacyClaimRefusal(route);
    const inLegacy = options.stateless || req.headers['mcp-session-id'] !== undefined;
    if (legacyClaim !== undefined && !inLegacy) {
      writeJson(
        res,
        400,
        errorMeta === undefined ? legacyClaim : withErrorMeta(legacyClaim, errorMeta),
      );
      return;
    }
    if (
      laned !== undefined ||
      (route !== undefined && route.kind !== 'legacy' && legacyClaim === undefined)
    ) {
      if (oauth !== undefined) await oauth.checkCalls(req, res, toPost(body), hub); // OAuth (auth/)
      if (laned === undefined) {
        await serveModern(req, res, body);
        return;
      }
      modernInFlight++;
      try {
        await laned(res, oauth?.messageExtra(req)); // OAuth (auth/)
      } finally {
        modernInFlight--;
      }
      return;
    }
    const post = toPost(body, inexact);
    if (oauth !== undefined) await oauth.checkCalls(req, res, post, hub); // OAuth (auth/)
    if (options.stateless) {
      await serveStateless(req, res, post);
      return;
    }
    const found = sessionFor(req, post);
    const session = found instanceof Promise ? await found : found;
    session.busy++;
    try {
      session.transport.handlePost(res, post, oauth?.messageExtra(req)); // OAuth (auth/)
      await finished(res);
    } finally {
      session.busy--;
      // Idle time counts from the end of the last request, not its start.
      if (session.transport.sessionId !== undefined) {
        sessions.use(session.transport.sessionId, session.owner);
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const allowed = options.stateless ? ['POST'] : ['GET', 'POST', 'DELETE'];
    if (!allowed.includes(req.method ?? '')) {
      res.setHeader('allow', allowed.join(', '));
      throw new HttpError(
        405,
        ProtocolErrorCode.InvalidRequest,
        options.stateless
          ? 'this server is stateless: only POST'
          : `method ${String(req.method)} is not allowed`,
      );
    }
    if (req.method === 'POST') {
      await servePost(req, res);
      return;
    }
    const session = await sessionFor(req, undefined);
    if (req.method === 'DELETE') {
      await session.server.close();
      res.writeHead(200).end();
      return;
    }
    if (!accepts(req, 'text/event-stream')) {
      throw new HttpError(
        406,
        ProtocolErrorCode.InvalidRequest,
        'a GET stream must accept text/event-stream',
      );
    }
    session.transport.handleGet(res);
  };

  return {
    handle,
    sessionCount: () => sessions.size,
    modernInFlight: () => modernInFlight,
    close: async () => {
      stopListening();
      stopUpdates();
      await modern.close();
      await sessions.close();
    },
  };
}

/** A request's MCP headers, as the SDK's classifier takes them (its entry reads the same). */
function standardHeaders(
  req: IncomingMessage,
): Pick<InboundHttpRequest, 'protocolVersionHeader' | 'mcpMethodHeader' | 'mcpNameHeader'> {
  const { headers } = req;
  const version = headers['mcp-protocol-version'];
  const method = headers['mcp-method'];
  const name = headers['mcp-name'];
  return {
    ...(typeof version === 'string' ? { protocolVersionHeader: version } : {}),
    ...(typeof method === 'string' ? { mcpMethodHeader: method } : {}),
    ...(typeof name === 'string' ? { mcpNameHeader: name } : {}),
  };
}

/** The URL a request was sent to, for the SDK's web-standard entry (which reads only its path). */
function endpointUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'http://gateway');
}

/**
 * `response` with `meta` in the `data._meta` of the JSON-RPC error its JSON body carries (as it
 * is when its body is not JSON).
 */
async function withMetaIn(
  response: Response,
  meta: Readonly<Record<string, unknown>>,
): Promise<Response> {
  if (response.headers.get('content-type')?.includes('application/json') !== true) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, response);
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(withErrorMeta(body, meta)), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
