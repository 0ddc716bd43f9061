import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  ProtocolErrorCode,
  type InboundHttpRequest,
} from '@modelcontextprotocol/server';
import { ToolError, type Toolkit } from '@toolplane/toolkit';
import { AccessPolicy } from './access.js';
import { SourceLimits } from './sources.js';
import { OAuthGate } from '../auth/oauth-gate.js'; // OAuth (auth/)
import {
  checkPostHeaders,
  checkProtocolVersion,
  accepts,
  finished,
  HttpError,
  readJson,
  toPost,
  writeJson,
  type Post,
} from './request.js';
import { SessionTable, type HttpSession } from './sessions.js';
import { HttpServerTransport, writeError } from './transport.js';
import { InFlight } from './drain.js';
import { StartupGate } from './startup.js';
import { httpCallLane } from './modern-lane.js';
import { toWebRequest, writeWebResponse } from './fetch.js';
import { claimsModernEra } from '../eras.js';
import { describeUnmatchedEntry, unmatchedFilterEntries } from '../filter-check.js';
import { withErrorMeta } from '../jsonrpc.js';
import {
  DEFAULT_IDLE_MS,
  httpLimits,
  INSTANCE_META_KEY,
  READY_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  type HttpGateway,
  type ServeHttpOptions,
} from './options.js';

export { INSTANCE_META_KEY } from './options.js';
export type { HttpGateway, HttpRoute, ServeHttpOptions } from './options.js';
import { GatewayHub } from '../hub.js';
import { combineObservers } from '../observe/observer.js';
import { METRICS_PATH, watchAnswer, writeMetrics } from '../observe/http.js';
import { createSessionServer } from '../server.js';

/**
 * Serves `toolkit` as an MCP server over Streamable HTTP on node:http, one SDK transport and
 * server per session. Binds 127.0.0.1 unless told otherwise, checks `Host` and `Origin`
 * (DNS-rebinding protection), an optional bearer token (from the headers, before any body is
 * read) and the body size, bounds sessions, connections (in all and per source) and the time to
 * send headers, reaps idle
 * sessions, and answers `GET /healthz`: a status word for anyone, every connector's state for a
 * caller with the token. A malformed, oversized or truncated
 * request gets a JSON-RPC error; the server carries on.
 *
 * The toolkit is the caller's to run and close unless `closeToolkit` is set.
 *
 * @throws {ToolError} `invalid_config` for a bad port or path; the listen error (e.g. the port
 * is taken) as its `cause`.
 */
export async function serveHttp(toolkit: Toolkit, options: ServeHttpOptions): Promise<HttpGateway> {
  const {
    host,
    path,
    maxBody,
    maxSessions,
    maxConnections,
    maxConnectionsPerSource,
    headersTimeout,
    drainMs,
  } = httpLimits(options);
  const access = new AccessPolicy(options);
  const sources = new SourceLimits({
    maxConnectionsPerSource,
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
  });
  // OAuth (auth/): exclusive with the static token.
  if (options.auth !== undefined && options.token !== undefined) {
    throw new ToolError('invalid_config', 'auth and token are exclusive: use one or the other');
  }
  const oauth = options.auth === undefined ? undefined : new OAuthGate(options.auth);
  // Metrics hear what the caller's own observer (audit lines) hears.
  const { metrics } = options;
  const observe = combineObservers(options.observe, metrics?.observer);
  const hub = new GatewayHub(toolkit, {
    ...options,
    ...(observe === undefined ? {} : { observe }),
  });
  // A 2026-07-28 request over HTTP is a session of its own: learning from use links a search to
  // the call after it by the caller, which only a token (OAuth's, or the static one) names.
  hub.modernCallers = options.token === undefined ? 'none' : 'token';
  await hub.negotiated;
  const sessions = new SessionTable({
    maxSessions,
    idleMs: options.sessionIdleMs ?? DEFAULT_IDLE_MS,
  });
  // 2026-07-28 requests: each served by a server of its own, with no session (the SDK's entry
  // answers server/discover, the version and header checks and subscriptions/listen).
  const modern = createMcpHandler(({ era }) => createSessionServer(hub, era), {
    legacy: 'reject',
    maxRequestBodySize: maxBody,
    maxSubscriptions: maxSessions,
  });
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
  const unbindMetrics = metrics?.bind({
    toolkit,
    sessions: () => ({ legacy: sessions.size, modern: modernInFlight }),
  });
  // Plain 2026-07-28 calls, served past the SDK's entry.
  const lane = httpCallLane(hub);
  // Requests being answered (GET streams aside, which never end by themselves), for the drain.
  const inFlight = new InFlight();
  let draining = false;
  const startup = new StartupGate(options.startup);
  const instanceId = options.instanceId;
  const errorMeta = instanceId === undefined ? undefined : { [INSTANCE_META_KEY]: instanceId };

  /** A connector's status for `/healthz`, with its filter's entries that match none of its tools. */
  const withUnmatchedFilter = <S extends { namespace: string; state: string }>(status: S) => {
    const lists =
      status.state === 'connected' ? toolkit.connector(status.namespace)?.lists : undefined;
    const unmatched =
      lists === undefined
        ? []
        : unmatchedFilterEntries(options.filter?.[status.namespace], lists.tools);
    return unmatched.length === 0
      ? status
      : {
          ...status,
          unmatchedFilter: unmatched.map((entry) => ({
            ...entry,
            message: describeUnmatchedEntry(status.namespace, entry),
          })),
        };
  };

  /** Whether the caller's readiness check passes, within its bound. */
  const isReady = async (): Promise<boolean> => {
    if (options.ready === undefined) return true;
    try {
      return await options.ready({ signal: AbortSignal.timeout(READY_TIMEOUT_MS) });
    } catch {
      return false;
    }
  };

  /** Serves a 2026-07-28 request: one server for it alone, as many at once as sessions. */
  const serveModern = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    if (modernInFlight >= maxSessions) {
      throw new HttpError(
        503,
        ProtocolErrorCode.InternalError,
        `the gateway is serving ${String(maxSessions)} requests; retry shortly`,
      );
    }
    modernInFlight++;
    try {
      const release = await hub.listen(body);
      if (release !== undefined) res.once('close', release);
      const response = await modern.fetch(toWebRequest(req, endpointUrl(req), { res }), {
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

  const openSession = async (): Promise<HttpSession> => {
    if (!sessions.makeRoom()) {
      throw new HttpError(
        503,
        ProtocolErrorCode.InternalError,
        `the gateway has ${String(maxSessions)} sessions, all busy; retry shortly`,
      );
    }
    const id = randomUUID();
    const server = createSessionServer(hub);
    const transport = new HttpServerTransport(id, errorMeta === undefined ? {} : { errorMeta });
    const session: HttpSession = { transport, server, busy: 0 };
    transport.onclose = () => {
      sessions.delete(id);
    };
    await server.connect(transport);
    sessions.add(id, session);
    return session;
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, post: Post) => {
    const server = createSessionServer(hub);
    const transport = new HttpServerTransport(
      undefined,
      errorMeta === undefined ? {} : { errorMeta },
    );
    res.once('close', () => {
      void server.close();
    });
    await server.connect(transport);
    transport.handlePost(res, post.messages, post.batch, oauth?.messageExtra(req)); // OAuth (auth/)
  };

  /**
   * The session a request names (at once, with no tick to wait); a new one for an initialize
   * request that names none.
   */
  const sessionFor = (
    req: IncomingMessage,
    post: Post | undefined,
  ): HttpSession | Promise<HttpSession> => {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.use(id);
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
    return openSession();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Behind a trusted proxy, the client it forwards holds a slot while this request lasts.
    sources.claimForwarded(req, res);
    // The endpoint itself, as clients send it, needs no parsing.
    const pathname = req.url === path ? path : new URL(req.url ?? '/', 'http://gateway').pathname;
    if (pathname === '/healthz' && req.method === 'GET') {
      // Open to health checkers, but only the token unlocks what the upstreams are and say.
      access.checkHostAndOrigin(req);
      const connectors = toolkit.connectors();
      // Draining or unable to serve: 503, so that a load balancer sends nothing more here.
      const status = draining
        ? 'draining'
        : !(await isReady())
          ? 'unavailable'
          : connectors.every((c) => c.state === 'connected')
            ? 'ok'
            : 'degraded';
      const serving = status === 'ok' || status === 'degraded';
      if (!serving) res.shouldKeepAlive = false;
      writeJson(
        res,
        serving ? 200 : 503,
        access.hasToken && access.isAuthorized(req)
          ? {
              status,
              ...(instanceId === undefined ? {} : { instance: instanceId }),
              sessions: sessions.size,
              connectors: connectors.map((status) => withUnmatchedFilter(status)),
              ...options.healthDetails?.(),
            }
          : { status },
      );
      return;
    }
    if (oauth?.serveMetadata(req, res, pathname) === true) return; // OAuth (auth/)
    const route = options.routes?.find(
      (r) => pathname === r.path || pathname.startsWith(`${r.path}/`),
    );
    if (route !== undefined) {
      // A browser's page: it brings a cookie, not the bearer token, so the route decides who.
      access.checkHostAndOrigin(req);
      await route.handle(req, res, pathname);
      return;
    }
    access.check(req);
    if (draining) {
      // A request on a connection kept alive past the listener's close: another instance
      // serves it (a balancer may retry a 503 elsewhere, as nothing was done here).
      res.shouldKeepAlive = false;
      throw new HttpError(
        503,
        ProtocolErrorCode.InternalError,
        'this gateway instance is shutting down; retry',
      );
    }
    if (oauth !== undefined) await oauth.authenticate(req, res); // OAuth (auth/)
    // Behind the same token (or OAuth) as the MCP endpoint.
    if (metrics !== undefined && pathname === METRICS_PATH && req.method === 'GET') {
      await writeMetrics(metrics, res);
      return;
    }
    if (pathname !== path)
      throw new HttpError(
        404,
        ProtocolErrorCode.InvalidRequest,
        `not found; the MCP endpoint is ${path}`,
      );
    if (!startup.over) {
      const gone = new AbortController();
      res.once('close', () => {
        gone.abort();
      });
      await startup.pass(gone.signal);
    }
    const allowed = options.stateless === true ? ['POST'] : ['GET', 'POST', 'DELETE'];
    if (!allowed.includes(req.method ?? '')) {
      res.setHeader('allow', allowed.join(', '));
      throw new HttpError(
        405,
        ProtocolErrorCode.InvalidRequest,
        options.stateless === true
          ? 'this server is stateless: only POST'
          : `method ${String(req.method)} is not allowed`,
      );
    }
    if (req.method === 'POST') {
      checkPostHeaders(req);
      const body = await readJson(req, maxBody);
      // A subscriptions/listen stream lasts until closed: the drain does not wait for it.
      if ((body as { method?: unknown } | null)?.method === 'subscriptions/listen')
        inFlight.untrack(res);
      // A 2026-07-28 request carries its version in _meta (and the headers); anything else is
      // the 2025 era's, served in sessions as before.
      // A plain call goes on the lane (counted as the SDK's way counts its requests); anything
      // else the SDK's classifier routes.
      const modernClaim = claimsModernEra(req.headers['mcp-protocol-version'], body);
      const laned = modernClaim && modernInFlight < maxSessions ? lane?.(req, body) : undefined;
      if (
        laned !== undefined ||
        (modernClaim &&
          classifyInboundRequest({ httpMethod: 'POST', ...standardHeaders(req), body }).kind !==
            'legacy')
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
      const post = toPost(body);
      if (oauth !== undefined) await oauth.checkCalls(req, res, post, hub); // OAuth (auth/)
      if (options.stateless === true) {
        await serveStateless(req, res, post);
        return;
      }
      const found = sessionFor(req, post);
      const session = found instanceof Promise ? await found : found;
      session.busy++;
      try {
        session.transport.handlePost(res, post.messages, post.batch, oauth?.messageExtra(req)); // OAuth (auth/)
        await finished(res);
      } finally {
        session.busy--;
        // Idle time counts from the end of the last request, not its start.
        if (session.transport.sessionId !== undefined) sessions.use(session.transport.sessionId);
      }
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

  const http = createServer(
    {
      headersTimeout: headersTimeout,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout),
      // How often the two limits above are enforced (Node's default, 30 s, lets trickling
      // connections pile up far past the header limit).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    (req, res) => {
      if (instanceId !== undefined) res.setHeader('toolplane-instance', instanceId);
      watchAnswer(observe, req, res, path);
      // A GET is a stream (or a health check): the drain waits for answers, not streams.
      if (req.method !== 'GET') inFlight.track(res);
      handle(req, res).catch((error: unknown) => {
        if (res.headersSent) {
          res.end();
          return;
        }
        if (error instanceof HttpError) {
          // OAuth (auth/) sets its own challenge.
          if (error.status === 401 && !res.hasHeader('www-authenticate'))
            res.setHeader('www-authenticate', 'Bearer');
          if (error.status === 503 || error.status === 429) res.setHeader('retry-after', '1');
          // A caller refused for who it is gets no reading of its body: the connection ends.
          if (error.status === 401 || error.status === 403) res.shouldKeepAlive = false;
          writeError(res, error.status, error.rpcCode, error.message, error.id, errorMeta);
        } else {
          writeError(
            res,
            500,
            ProtocolErrorCode.InternalError,
            error instanceof Error ? error.message : String(error),
            null,
            errorMeta,
          );
        }
        // A body we refused to read is drained off the socket so the answer still arrives.
        if (res.shouldKeepAlive) req.resume();
      });
    },
  );
  http.maxConnections = maxConnections;
  // Past its source's bound a connection is cut at once, before it can take a slot for long.
  http.on('connection', (socket: Socket) => {
    if (!sources.admit(socket)) socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(
        new ToolError(
          'invalid_config',
          `could not listen on ${host}:${String(options.port)}: ${error.message}`,
          { cause: error },
        ),
      );
    };
    http.once('error', onError);
    http.listen(options.port, host, () => {
      http.off('error', onError);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  access.listening(shownHost, port);
  oauth?.listening(new URL(`http://${shownHost}:${port}${path}`)); // OAuth (auth/)

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      draining = true;
      const stopped = new Promise<void>((resolve) =>
        http.close(() => {
          resolve();
        }),
      );
      // Answers in flight finish (up to the bound) before sessions and upstreams close.
      await inFlight.settled(drainMs);
      stopListening();
      stopUpdates();
      unbindMetrics?.();
      await modern.close();
      await sessions.close();
      hub.dispose();
      http.closeAllConnections();
      await stopped;
      if (options.closeToolkit === true) await toolkit.close();
    })());

  return {
    url: new URL(`http://${shownHost}:${port}${path}`),
    get sessionCount() {
      return sessions.size;
    },
    close,
    reconfigure: (next) => {
      hub.reconfigure(next);
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
