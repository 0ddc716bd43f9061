import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { silentLogger, ToolError, type Toolkit } from '@toolplane/toolkit';
import { AccessPolicy } from './access.js';
import { AuthFailureLimit } from './auth-failures.js';
import { SourceLimits } from './sources.js';
import { ConnectionSlots } from './connections.js';
import { OAuthGate } from '../auth/oauth-gate.js'; // OAuth (auth/)
import { HttpError, requestPath } from './request.js';
import { writeError } from './transport.js';
import { InFlight } from './drain.js';
import { StartupGate } from './startup.js';
import { HEALTHZ_PATH, serveHealthz, type HealthSource } from './healthz.js';
import { mcpEndpoint } from './mcp-endpoint.js';
import {
  DEFAULT_IDLE_MS,
  checkEndpointPath,
  HTTP_OPTION_KEYS,
  httpLimits,
  INSTANCE_META_KEY,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  type HttpGateway,
  type ServeHttpOptions,
} from './options.js';

export { INSTANCE_META_KEY } from './options.js';
export type {
  AuthAttempts,
  HttpGateway,
  HttpRoute,
  RouteContext,
  ServeHttpOptions,
} from './options.js';
import { GatewayHub } from '../hub.js';
import { checkGatewayOptions } from '../option-checks.js';
import { combineObservers, safely } from '../observe/observer.js';
import { METRICS_PATH, watchAnswer, writeMetrics } from '../observe/http.js';

/**
 * What a 500 says for a failure that is not a `ToolError` (a route's, or a bug's): its own
 * message may name paths, hosts or credentials of the machine, so it goes to `logger` instead.
 */
const INTERNAL_ERROR_MESSAGE = 'the gateway failed on an unexpected error; its log has the details';

/**
 * Serves `toolkit` as an MCP server over Streamable HTTP on node:http, one SDK transport and
 * server per session. Binds 127.0.0.1 unless told otherwise, checks `Host` and `Origin`
 * (DNS-rebinding protection), an optional bearer token (from the headers, before any body is
 * read; wrong ones counted per source, which is refused with 429 past a budget) and the body
 * size, bounds sessions, connections (in all and per source) and the time to send headers, reaps
 * idle
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
  checkGatewayOptions(options, 'serveHttp', HTTP_OPTION_KEYS);
  const {
    host,
    path,
    maxBody,
    maxSessions,
    maxConnections,
    maxConnectionsPerSource,
    headersTimeout,
    drainMs,
    streamAfterMs,
  } = httpLimits(options);
  checkEndpointPath(path, {
    healthz: HEALTHZ_PATH,
    ...(options.metrics === undefined ? {} : { metrics: METRICS_PATH }),
    routes: (options.routes ?? []).map((route) => route.path),
  });
  const sources = new SourceLimits({
    maxConnectionsPerSource,
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
  });
  const access = new AccessPolicy(
    options,
    options.authFailureLimit === false
      ? undefined
      : {
          limit: new AuthFailureLimit(options.authFailureLimit),
          sourceOf: (req) => sources.sourceOf(req),
        },
  );
  // OAuth (auth/): exclusive with the static token.
  if (options.auth !== undefined && options.token !== undefined) {
    throw new ToolError('invalid_config', 'auth and token are exclusive: use one or the other');
  }
  const oauth = options.auth === undefined ? undefined : new OAuthGate(options.auth);
  // Metrics hear what the caller's own observer (audit lines) hears.
  const { metrics } = options;
  const observe = combineObservers(options.observe, metrics?.observer);
  const connections = new ConnectionSlots(maxConnections, sources, (record) => {
    safely(observe?.connectionBound, record);
  });
  const hub = new GatewayHub(toolkit, {
    ...options,
    ...(observe === undefined ? {} : { observe }),
  });
  // A 2026-07-28 request over HTTP is a session of its own: learning from use links a search to
  // the call after it by the caller, which only a token (OAuth's, or the static one) names.
  hub.modernCallers = options.token === undefined ? 'none' : 'token';
  await hub.negotiated;
  const inFlight = new InFlight();
  let draining = false;
  const startup = new StartupGate(options.startup);
  const instanceId = options.instanceId;
  const errorMeta = instanceId === undefined ? undefined : { [INSTANCE_META_KEY]: instanceId };
  const logger = options.logger ?? silentLogger;
  const endpoint = mcpEndpoint({
    hub,
    maxBody,
    maxSessions,
    idleMs: options.sessionIdleMs ?? DEFAULT_IDLE_MS,
    stateless: options.stateless === true,
    oauth,
    errorMeta,
    streamAfterMs,
    inFlight,
    sourceOf: (req) => sources.sourceOf(req),
  });
  const unbindMetrics = metrics?.bind({
    toolkit,
    sessions: () => ({ legacy: endpoint.sessionCount(), modern: endpoint.modernInFlight() }),
    connections: () => connections.counts(),
  });
  const health: HealthSource = {
    toolkit,
    access,
    options,
    filter: () => hub.options.filter,
    draining: () => draining,
    sessions: endpoint.sessionCount,
  };

  /**
   * The route table, in the order a request meets it: the health check (open to all), OAuth's
   * metadata, the caller's own routes (each deciding who may), then, behind the token or
   * OAuth, `/metrics` and the MCP endpoint (held until the startup gate opens).
   */
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Behind a trusted proxy, the client it forwards holds a slot while this request lasts.
    sources.claimForwarded(req, res);
    // The endpoint itself, as clients send it, needs no parsing.
    const pathname = req.url === path ? path : requestPath(req.url ?? '/');
    // HEAD as GET (Node sends no body for it): the check many load balancers send.
    const reads = req.method === 'GET' || req.method === 'HEAD';
    if (pathname === HEALTHZ_PATH) {
      if (!reads) refuseMethod(res, pathname);
      await serveHealthz(health, req, res);
      return;
    }
    if (oauth?.serveMetadata(req, res, pathname) === true) return; // OAuth (auth/)
    const route = options.routes?.find(
      (r) => pathname === r.path || pathname.startsWith(`${r.path}/`),
    );
    if (route !== undefined) {
      // A browser's page: it brings a cookie, not the bearer token, so the route decides who.
      access.checkHostAndOrigin(req);
      await route.handle(req, res, pathname, { authAttempts: access.attempts(req) });
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
    if (oauth !== undefined) await oauth.authenticate(req, res, access.attempts(req)); // OAuth (auth/)
    // Behind the same token (or OAuth) as the MCP endpoint.
    if (metrics !== undefined && pathname === METRICS_PATH) {
      if (!reads) refuseMethod(res, pathname);
      // Its series name every tool called: not for a caller that may not see them all.
      if (oauth !== undefined) await oauth.requireEverything(req, res, hub); // OAuth (auth/)
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
    await endpoint.handle(req, res);
  };

  const http = createServer(
    {
      headersTimeout: headersTimeout,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout),
      // How often the two limits above are enforced (Node's default, 30 s, lets trickling
      // connections pile up far past the header limit).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    },
    (req, res) => {
      connections.track(req, res);
      if (instanceId !== undefined) res.setHeader('toolplane-instance', instanceId);
      watchAnswer(observe, req, res, path);
      // A GET is a stream (or a health check): the drain waits for answers, not streams.
      if (req.method !== 'GET') inFlight.track(res);
      handle(req, res).catch((error: unknown) => {
        const unexpected = !(error instanceof HttpError) && !ToolError.isInstance(error);
        // Its own words may name paths, hosts or credentials: they go to the log, not the caller.
        if (unexpected) {
          // The path alone: a query may carry a credential.
          const [target = '/'] = (req.url ?? '/').split('?');
          logger.error(`${req.method ?? 'GET'} ${target} failed`, {
            error: error instanceof Error ? error.message : String(error),
            ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
          });
        }
        if (res.headersSent) {
          res.end();
          return;
        }
        if (error instanceof HttpError) {
          // OAuth (auth/) sets its own challenge.
          if (error.status === 401 && !res.hasHeader('www-authenticate'))
            res.setHeader('www-authenticate', 'Bearer');
          if (error.status === 503 || error.status === 429) res.setHeader('retry-after', '1');
          for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
          // A caller refused for who it is gets no reading of its body: the connection ends.
          if (error.status === 401 || error.status === 403) res.shouldKeepAlive = false;
          writeError(res, error.status, error.rpcCode, error.message, error.id, errorMeta);
        } else {
          writeError(
            res,
            500,
            ProtocolErrorCode.InternalError,
            unexpected ? INTERNAL_ERROR_MESSAGE : (error as ToolError).message,
            null,
            errorMeta,
          );
        }
        // A body we refused to read is drained off the socket so the answer still arrives.
        if (res.shouldKeepAlive) req.resume();
      });
    },
  );
  // Past a bound, a new connection takes the slot of the longest idle one, or is cut at once.
  http.on('connection', (socket: Socket) => {
    if (!connections.admit(socket)) socket.destroy();
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
      unbindMetrics?.();
      await endpoint.close();
      hub.dispose();
      http.closeAllConnections();
      await stopped;
      if (options.closeToolkit === true) await toolkit.close();
    })());

  return {
    url: new URL(`http://${shownHost}:${port}${path}`),
    get sessionCount() {
      return endpoint.sessionCount();
    },
    close,
    reconfigure: (next) => {
      hub.reconfigure(next);
    },
  };
}

/** Refuses a method other than GET and HEAD on a read-only path: 405, with `Allow`. */
function refuseMethod(res: ServerResponse, pathname: string): never {
  res.setHeader('allow', 'GET, HEAD');
  throw new HttpError(
    405,
    ProtocolErrorCode.InvalidRequest,
    `${pathname} answers GET and HEAD only`,
  );
}
