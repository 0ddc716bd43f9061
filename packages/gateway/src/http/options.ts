// What serveHttp is told, its defaults, and the checks of what it is told.
import { ToolError } from '@toolplane/toolkit';
import { checkDuration, countOr, MAX_TIMER_MS, optionKeys } from '@toolplane/toolmodel';
import type { GatewayAuth } from '../auth/gateway-auth.js'; // OAuth (auth/)
import { CONFIG_COUNT, CONFIG_COUNT_OR_ZERO, GATEWAY_OPTION_KEYS } from '../option-checks.js';
import type { GatewayOptions, ServedGateway } from '../options.js';
import type { GatewayMetrics } from '../observe/metrics.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A handler served next to the MCP endpoint, such as the dashboard at `/ui`
 * (`dashboardRoutes` of `@toolplane/dashboard`). The gateway checks `Host` and `Origin` first;
 * the route authenticates its callers itself (a browser sends no bearer token).
 */
export interface HttpRoute {
  /** The path it answers, with every path under it: `/ui` answers `/ui` and `/ui/…`. */
  readonly path: string;
  /**
   * Answers the request; a rejection becomes a 500 unless the answer has begun (one that is not a
   * `ToolError` is told to the gateway's `logger`, and the 500 does not repeat its message).
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    context: RouteContext,
  ): Promise<void>;
}

/** What the gateway gives an {@link HttpRoute} with each request. */
export interface RouteContext {
  /**
   * The failed authentications of the request's source, as the gateway counts them (see
   * `authFailureLimit`): a route that checks credentials of its own, such as a login form, asks
   * before checking and tells the outcome, so that guesses there and at the MCP endpoint share
   * one budget.
   */
  readonly authAttempts: AuthAttempts;
}

/** One request's source, as the limit on failed authentications sees it. */
export interface AuthAttempts {
  /** Seconds until the source may authenticate again (refuse with 429 until then); 0: now. */
  retryAfter(): number;
  /**
   * Counts a failed authentication (wrong credentials, not a malformed request). A check that
   * awaits something should count the failure before it (and {@link succeeded} after it passes):
   * otherwise many concurrent guesses all pass {@link retryAfter} while none has failed yet.
   */
  failed(): void;
  /** The source authenticated: its failures are forgotten. */
  succeeded(): void;
  /**
   * The check a {@link failed} counted before it ended with no verdict (the authorization server
   * did not answer): that failure is taken back, so an outage does not lock out a user who
   * retries. A failure that already ended the budget keeps its refusal.
   */
  unverified(): void;
}
import type { StartupOptions } from './startup.js';
import type { AuthFailureLimitOptions } from './auth-failures.js';
import { STREAM_AFTER_MS } from './transport.js';

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions extends GatewayOptions {
  /** The interface to bind (default `127.0.0.1`, reachable from this machine only). */
  readonly host?: string;
  /** The port; `0` picks a free one (see {@link HttpGateway.url}). */
  readonly port: number;
  /** The MCP endpoint's path (default `/mcp`). */
  readonly path?: string;
  /** When set, every request needs `Authorization: Bearer <token>` (else 401). */
  readonly token?: string;
  /**
   * OAuth 2.1: every request needs an access token this resource server accepts (else 401 with
   * a `WWW-Authenticate` challenge naming the metadata it serves), and its scopes decide which
   * tools the caller sees and may call. `createResourceServer` from `@toolplane/oauth` makes one.
   * Exclusive with `token`.
   */
  readonly auth?: GatewayAuth;
  /**
   * Host names accepted in the `Host` header besides the bound host, `localhost`, `127.0.0.1`
   * and `[::1]` (DNS-rebinding protection); with or without a port.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins accepted in an `Origin` header besides the gateway's own (http(s) on an accepted host
   * name and the real port); a request with any other Origin gets 403.
   */
  readonly allowedOrigins?: readonly string[];
  /** No sessions: every POST is served on its own and forgotten (no GET streams, no notifications). */
  readonly stateless?: boolean;
  /** A session without requests for this long is closed (default 30 minutes). */
  readonly sessionIdleMs?: number;
  /**
   * Most sessions open at once (default 2,000). When full, a new session takes the place of the
   * least recently used one with no request in flight (whose client gets 404 next and initializes
   * again); when every session is busy, `initialize` gets 503 with `Retry-After`.
   */
  readonly maxSessions?: number;
  /**
   * Most TCP connections open at once (default 1,024). When full, a new connection takes the
   * place of the one idle longest (kept alive after its answers, no request in flight), which
   * is closed; when none is idle, the new one is refused on arrival.
   */
  readonly maxConnections?: number;
  /**
   * Most TCP connections one source may hold open at once (default: half of `maxConnections`),
   * so that one caller cannot take every slot; past it, a new connection from that source takes
   * the place of the source's own longest idle one, or is refused on arrival. A source is an
   * address (an IPv6 address's /64). At most `maxConnections`.
   */
  readonly maxConnectionsPerSource?: number;
  /**
   * Addresses or subnets (`10.0.0.0/8`, `fd00::/8`) of reverse proxies whose `X-Forwarded-For`
   * is believed. Their connections are not bounded per source; instead each request on one
   * counts, while in flight, against the client the header names (the nearest address in it
   * that is no trusted proxy), and past `maxConnectionsPerSource` gets 429 with `Retry-After`.
   * Anyone else's `X-Forwarded-For` is ignored.
   */
  readonly trustedProxies?: readonly string[];
  /**
   * The limit on failed authentications (on by default; `false` turns it off): a source (as
   * `maxConnectionsPerSource` counts them, behind `trustedProxies` the forwarded client) that
   * sends a wrong bearer token `maxFailures` times (default 10) within `windowMs` (default 1
   * minute) gets 429 with `Retry-After` for `refusalMs` (default 1 minute), its token not even
   * checked; each failure after a refusal refuses it again for twice as long, up to `maxRefusalMs`
   * (default 15 minutes). A success forgets its failures; other sources are served meanwhile.
   * Counts the static `token` at the MCP endpoint, `/metrics` and `/healthz`, and what a route's
   * own login reports ({@link RouteContext}); OAuth tokens are not counted. At most `maxSources`
   * (default 10,000) sources are remembered, the least recently failed making room.
   */
  readonly authFailureLimit?: AuthFailureLimitOptions | false;
  /**
   * How long a client may take to send a request's headers (default 10 s), so connections that
   * trickle them (slowloris) are cut instead of held.
   */
  readonly headersTimeoutMs?: number;
  /** Largest request body accepted, in bytes (default 4 MiB; larger gets 413). */
  readonly maxBodyBytes?: number;
  /**
   * Serve these metrics at `GET /metrics` in the Prometheus text format, behind the same token
   * (or OAuth) as the MCP endpoint; {@link createGatewayMetrics} makes them. Without it there
   * is no `/metrics`.
   */
  readonly metrics?: GatewayMetrics;
  /** Close the toolkit too when the gateway closes (default `false`: the toolkit is the caller's). */
  readonly closeToolkit?: boolean;
  /**
   * Whether this process can serve (e.g. its store answers), asked by each `GET /healthz`: a
   * `false`, a throw or no answer within 2 s makes it HTTP 503 `{"status":"unavailable"}`, so a
   * load balancer's check takes the instance out (default: always ready).
   */
  readonly ready?: (options: { signal: AbortSignal }) => Promise<boolean>;
  /**
   * More fields for the `/healthz` answer a caller with the token gets (e.g. the CLI's reload
   * state: a config edit refused and why); asked on every such request.
   */
  readonly healthDetails?: () => Readonly<Record<string, unknown>> | undefined;
  /**
   * How long {@link HttpGateway.close} lets requests in flight finish, in milliseconds, after it
   * has stopped listening (default 0: they are cut at once). Meanwhile `/healthz` answers 503
   * `{"status":"draining"}` and a new request on a kept-alive connection 503 with `Retry-After`.
   */
  readonly drainMs?: number;
  /**
   * How long the answer to a 2025-era POST waits for its responses before its headers go out as
   * the head of an SSE stream, in milliseconds (default 100). A call answered within it, with
   * nothing else to say, is one `application/json` body; a slower one still gets its status line
   * then, for clients and proxies that give up on a silent connection. 0 streams every answer
   * that is not ready at once.
   */
  readonly streamAfterMs?: number;
  /** Extra handlers mounted under their own paths (see {@link HttpRoute}). */
  readonly routes?: readonly HttpRoute[];
  /**
   * The caller's startup (e.g. its upstreams' first connection attempts): until `until` settles,
   * an MCP request waits, at most `waitMs` (default 10 s), then gets 503 with `Retry-After`, so
   * no client sees a partial tool list. `/healthz` is not held (its `ready` says the rest).
   */
  readonly startup?: StartupOptions;
}

export { INSTANCE_META_KEY } from '../jsonrpc.js';

/** Every key of {@link ServeHttpOptions}. */
export const HTTP_OPTION_KEYS = [
  ...GATEWAY_OPTION_KEYS,
  ...optionKeys<Omit<ServeHttpOptions, keyof GatewayOptions>>({
    host: true,
    port: true,
    path: true,
    token: true,
    auth: true,
    allowedHosts: true,
    allowedOrigins: true,
    stateless: true,
    sessionIdleMs: true,
    maxSessions: true,
    maxConnections: true,
    maxConnectionsPerSource: true,
    trustedProxies: true,
    authFailureLimit: true,
    headersTimeoutMs: true,
    maxBodyBytes: true,
    metrics: true,
    closeToolkit: true,
    ready: true,
    healthDetails: true,
    drainMs: true,
    streamAfterMs: true,
    routes: true,
    startup: true,
  }),
];

/** A gateway serving Streamable HTTP; see {@link serveHttp}. */
export interface HttpGateway extends ServedGateway {
  /** The endpoint, with the real port, e.g. `http://127.0.0.1:49152/mcp`. */
  readonly url: URL;
  /** How many sessions are open. */
  readonly sessionCount: number;
}

export const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
// About 26 KB of heap each (bench/sessions.ts): 2,000 sessions hold ~52 MB.
const DEFAULT_MAX_SESSIONS = 2_000;
const DEFAULT_MAX_CONNECTIONS = 1_024;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
// How long an idle kept-alive connection stays open. A client that sends on a connection as the
// server closes it gets ECONNRESET, and a POST is not retried. At Node's 5 s default, undici
// closes its side only 2 s before the server and httpx (5 s) at the same moment, so on a busy
// host a call after a few seconds' pause could fail. Past the 60 s idle bound of common
// balancers (AWS ALB, nginx upstream keepalive), the client or the balancer closes first.
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
// A request whose body never arrives in full is dropped rather than held open.
export const REQUEST_TIMEOUT_MS = 60_000;
// A readiness check slower than this counts as not ready.
export const READY_TIMEOUT_MS = 2_000;

/** The limits {@link serveHttp} runs with, checked. */
export interface HttpLimits {
  readonly host: string;
  readonly path: string;
  readonly maxBody: number;
  readonly maxSessions: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerSource: number;
  readonly headersTimeout: number;
  readonly drainMs: number;
  readonly streamAfterMs: number;
}

/**
 * The options' limits with their defaults, checked.
 *
 * @throws {ToolError} `invalid_config` for a bad port, path, count or bound (a duration past
 * 2^31 − 1 ms included), or a per-source bound above `maxConnections`.
 */
export function httpLimits(options: ServeHttpOptions): HttpLimits {
  if (options.sessionIdleMs !== undefined) {
    checkDuration(options.sessionIdleMs, 'sessionIdleMs', { code: 'invalid_config', whole: true });
  }
  for (const key of ['headersTimeoutMs', 'drainMs', 'streamAfterMs'] as const) {
    const value = options[key];
    // A timer set past 2^31 - 1 ms fires at once: a drain would end as it began.
    if (value !== undefined && value > MAX_TIMER_MS) {
      checkDuration(value, key, { code: 'invalid_config', zero: key !== 'headersTimeoutMs' });
    }
  }
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_535) {
    throw new ToolError(
      'invalid_config',
      `port must be an integer from 0 to 65535, got ${String(options.port)}`,
    );
  }
  if (!path.startsWith('/')) {
    throw new ToolError('invalid_config', `path must start with "/", got ${JSON.stringify(path)}`);
  }
  // NaN (`Number(process.env.X)` of a variable not set) reached the SDK as a RangeError.
  const maxBody = countOr(options.maxBodyBytes, DEFAULT_MAX_BODY, 'maxBodyBytes', CONFIG_COUNT);
  const maxSessions = countOr(
    options.maxSessions,
    DEFAULT_MAX_SESSIONS,
    'maxSessions',
    CONFIG_COUNT,
  );
  const maxConnections = countOr(
    options.maxConnections,
    DEFAULT_MAX_CONNECTIONS,
    'maxConnections',
    CONFIG_COUNT,
  );
  // Half: one source can never hold more slots than are left for everyone else.
  const maxConnectionsPerSource = countOr(
    options.maxConnectionsPerSource,
    Math.max(1, Math.floor(maxConnections / 2)),
    'maxConnectionsPerSource',
    CONFIG_COUNT,
  );
  if (maxConnectionsPerSource > maxConnections) {
    throw new ToolError(
      'invalid_config',
      `maxConnectionsPerSource (${String(maxConnectionsPerSource)}) must be at most maxConnections (${String(maxConnections)})`,
    );
  }
  const headersTimeout = countOr(
    options.headersTimeoutMs,
    DEFAULT_HEADERS_TIMEOUT_MS,
    'headersTimeoutMs',
    CONFIG_COUNT,
  );
  const drainMs = countOr(options.drainMs, 0, 'drainMs', CONFIG_COUNT_OR_ZERO);
  const streamAfterMs = countOr(
    options.streamAfterMs,
    STREAM_AFTER_MS,
    'streamAfterMs',
    CONFIG_COUNT_OR_ZERO,
  );
  return {
    host,
    path,
    maxBody,
    maxSessions,
    maxConnections,
    maxConnectionsPerSource,
    headersTimeout,
    drainMs,
    streamAfterMs,
  };
}

/**
 * Refuses an MCP endpoint path another route of the gateway answers first: the health check,
 * `/metrics` (when served), a caller's route (its path or one under it) or `/.well-known/…`
 * (OAuth's metadata). Such an endpoint would be printed and never reached.
 *
 * @throws {ToolError} `invalid_config` naming the route that has the path.
 */
export function checkEndpointPath(
  path: string,
  taken: {
    readonly healthz: string;
    readonly metrics?: string;
    readonly routes: readonly string[];
  },
): void {
  const under = (prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);
  const owner =
    path === taken.healthz
      ? 'the health check'
      : path === taken.metrics
        ? 'the metrics'
        : under('/.well-known')
          ? 'well-known metadata (OAuth)'
          : taken.routes.find(under);
  if (owner === undefined) return;
  throw new ToolError(
    'invalid_config',
    `path ${JSON.stringify(path)} is answered by ${owner.startsWith('/') ? `the route at ${owner}` : owner}, so no client would reach the MCP endpoint there; pick another, e.g. "/mcp"`,
  );
}
