import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  silentLogger,
  ToolError,
  type Logger,
  type PinStore,
  type Toolkit,
} from '@toolplane/toolkit';
import { checkCount, checkDuration, optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import * as api from './api.js';
import type { DashboardCall, ToolVisibility } from './api.js';
import { loadAssets } from './assets.js';
import { createCallFeed, type CallFeed } from './call-feed.js';
import { EventStreams } from './events.js';
import * as pinsApi from './pins.js';
import * as tryIt from './try-it.js';
import {
  checkSameOrigin,
  readJsonObject,
  secureHeaders,
  sendError,
  sendJson,
  UiError,
} from './http.js';
import { COOKIE_NAME, UiSessions } from './sessions.js';

/**
 * What a login proves: `true`, or the moment (epoch ms) the proof expires (an OAuth access
 * token's `exp`), after which the operator logs in again.
 */
export type LoginProof = true | { readonly expiresAt?: number };

/** Options of {@link dashboardRoutes}. */
export interface DashboardOptions {
  readonly toolkit: Toolkit;
  /**
   * Checks what the operator typed in the login form: the gateway's bearer token
   * ({@link staticTokenVerifier}), or an OAuth access token checked as the gateway checks it.
   * Resolve `false` (or reject) to refuse; reject with a `ToolError` `connector_unavailable` (an
   * OAuth `AuthError` for an authorization server that did not answer) when the token could not
   * be checked: the login answers 503 with `Retry-After`. Absent: the gateway has no token, so neither has the
   * dashboard (it is as open as the MCP endpoint; Host and Origin checks still apply).
   */
  readonly verify?: (
    token: string,
    options: { signal: AbortSignal },
  ) => Promise<LoginProof | false>;
  /** The calls to show; give its `middleware` to the toolkit to see every client's calls. */
  readonly feed?: CallFeed;
  /**
   * The toolkit's pin store (the one given as its `pinning.store`): the Changes page lists its
   * pending changes, with their diffs, and accepts them. Absent: the page says pinning is off.
   */
  readonly pins?: PinStore;
  /**
   * Told of each call made from the try-it form (after it ends): give it to what counts and
   * audits the gateway's calls (its metrics, its log), which hear only MCP clients' calls.
   */
  readonly onCall?: (call: DashboardCall) => void;
  /** Which tools to show and call (default all): pass the gateway's filter. */
  readonly visible?: ToolVisibility;
  /** Where it is mounted (default `/ui`). */
  readonly path?: string;
  /** How long a login lasts (default 8 hours). */
  readonly sessionTtlMs?: number;
  /** Most logins kept at once (default 100; the oldest makes room). */
  readonly maxSessions?: number;
  /** Most live streams open at once (default 32). */
  readonly maxStreams?: number;
  /** Largest request body, in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Where a failure that is not a `ToolError` is logged, as an error with its message and stack
   * (default: nowhere): the answer is a 500 that says only to look in the log, as the message may
   * name what a caller must not see.
   */
  readonly logger?: Logger;
}

/**
 * What the gateway gives the dashboard with each request (`RouteContext` of `@toolplane/gateway`):
 * the failed authentications of the request's source. The login asks it before checking a token
 * (429 with `Retry-After` while the source is refused) and tells it the outcome, so that guesses
 * at the login and at the MCP endpoint share one budget.
 */
export interface LoginContext {
  readonly authAttempts: {
    /** Seconds until the source may try again; 0 when it may now. */
    retryAfter(): number;
    failed(): void;
    succeeded(): void;
    /** Takes back the failure counted before a check that ended with no verdict (an outage). */
    unverified?(): void;
  };
}

/** The dashboard as a route a gateway mounts (`serveHttp`'s `routes`). */
export interface DashboardRoutes {
  /** Where it answers, e.g. `/ui`. */
  readonly path: string;
  /** The feed it shows (the one given, or its own). */
  readonly feed: CallFeed;
  /**
   * Answers a request under {@link DashboardRoutes.path}; without `context` (mounted elsewhere
   * than a gateway) logins are not limited.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    context?: LoginContext,
  ): Promise<void>;
  /** Ends the live streams and stops listening to the toolkit. */
  close(): void;
}

const LOGIN_TIMEOUT_MS = 10_000;

const OPTION_KEYS = optionKeys<DashboardOptions>({
  toolkit: true,
  verify: true,
  feed: true,
  pins: true,
  onCall: true,
  visible: true,
  path: true,
  sessionTtlMs: true,
  maxSessions: true,
  maxStreams: true,
  maxBodyBytes: true,
  logger: true,
});

/**
 * The dashboard: a web app at `/ui` (built into this package, no CDN) and the JSON API and event
 * stream behind it. The token is typed once in a login form and kept as an HMAC-signed session
 * id in an `HttpOnly`, `SameSite=Strict` cookie; every answer carries a strict
 * Content-Security-Policy; every state-changing request must come from this very origin.
 *
 * @throws {ToolError} `invalid_config` for an option it does not take (a misspelt `verify` left the
 * dashboard without a login), when the web app was not built, or for a path that does not start
 * with `/`.
 */
export function dashboardRoutes(options: DashboardOptions): DashboardRoutes {
  refuseUnknownOptions(options, OPTION_KEYS, 'dashboardRoutes', { code: 'invalid_config' });
  const path = options.path ?? '/ui';
  const logger = options.logger ?? silentLogger;
  if (!path.startsWith('/') || path.endsWith('/')) {
    throw new ToolError('invalid_config', `path must start and not end with "/", got "${path}"`);
  }
  // 0 kept no login and no stream, NaN bounded nothing, and a TTL past a timer's reach ended
  // every login at once.
  const code = 'invalid_config';
  for (const key of ['maxSessions', 'maxStreams', 'maxBodyBytes'] as const) {
    const value = options[key];
    if (value !== undefined) checkCount(value, `dashboardRoutes: ${key}`, { code });
  }
  if (options.sessionTtlMs !== undefined) {
    checkDuration(options.sessionTtlMs, 'dashboardRoutes: sessionTtlMs', { code });
  }
  const assets = loadAssets();
  const feed = options.feed ?? createCallFeed();
  const ctx: api.ApiContext = {
    toolkit: options.toolkit,
    feed,
    visible: options.visible ?? (() => true),
    maxBody: options.maxBodyBytes ?? 1024 * 1024,
    ...(options.onCall === undefined ? {} : { onCall: options.onCall }),
  };
  const sessions = new UiSessions({
    max: options.maxSessions ?? 100,
    ttlMs: options.sessionTtlMs ?? 8 * 3_600_000,
  });
  const pinsCtx: pinsApi.PinsContext = {
    pins: options.pins,
    visible: ctx.visible,
    maxBody: ctx.maxBody,
  };
  const streams = new EventStreams({
    toolkit: options.toolkit,
    feed,
    max: options.maxStreams ?? 32,
    ...(options.pins === undefined ? {} : { pins: options.pins }),
  });
  const { verify } = options;
  // What try-it calls ask their operators (approvals), waiting for an answer in the page.
  const questions = new tryIt.TryItQuestions();
  // `Secure` when the browser's page is on HTTPS, as its Origin says (checked to name this very
  // server before any POST is served), e.g. behind a proxy that ends TLS and speaks HTTP here.
  const cookie = (req: IncomingMessage, value: string, maxAge: number): string =>
    `${COOKIE_NAME}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${String(maxAge)}${
      req.headers.origin?.startsWith('https://') === true ? '; Secure' : ''
    }`;

  const login = async (
    req: IncomingMessage,
    res: ServerResponse,
    attempts: LoginContext['authAttempts'] | undefined,
  ): Promise<void> => {
    const limited = verify === undefined ? undefined : attempts;
    // A source refused for its failed logins is told so before its body is read.
    refuseIfLimited(res, limited);
    const body = await readJsonObject(req, 16 * 1024);
    const token = body.token;
    if (typeof token !== 'string' || token === '' || token.length > 8_192) {
      throw new UiError(400, 'invalid_argument', '"token" must be a non-empty string');
    }
    let proof: LoginProof | false = true;
    if (verify !== undefined) {
      // Asked again now that the body is in, and counted as failed before the verdict, which
      // comes later: concurrent guesses cannot all pass the check while none has failed yet.
      refuseIfLimited(res, limited);
      limited?.failed();
      try {
        proof = await verify(token, { signal: AbortSignal.timeout(LOGIN_TIMEOUT_MS) });
      } catch (error) {
        // Not checked (the authorization server did not answer) is no verdict on the token.
        if (ToolError.isInstance(error) && error.code === 'connector_unavailable') {
          limited?.unverified?.();
          const after = (error as { retryAfterSec?: unknown }).retryAfterSec;
          const seconds = typeof after === 'number' && after >= 1 ? Math.ceil(after) : 5;
          res.setHeader('retry-after', String(seconds));
          throw new UiError(
            503,
            'connector_unavailable',
            `the token could not be checked: ${error.message}; try again in a moment`,
          );
        }
        proof = false;
      }
    }
    if (proof === false) {
      throw new UiError(401, 'unauthorized', 'that token is not accepted; paste the gateway token');
    }
    limited?.succeeded();
    const opened = sessions.open(proof === true ? undefined : proof.expiresAt);
    res.setHeader('set-cookie', cookie(req, opened.value, opened.maxAge));
    sendJson(res, 200, { authenticated: true });
  };

  const serveAsset = (req: IncomingMessage, res: ServerResponse, name: string): void => {
    const asset = assets.get(name);
    if (asset === undefined) {
      throw new UiError(404, 'not_found', `no page "${name}" here; open ${path}/`);
    }
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const body = gzip ? asset.gzipped : asset.body;
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': body.length,
      vary: 'accept-encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      // The page itself is small and names the current bundle: always fresh.
      'cache-control': name === 'index.html' ? 'no-cache' : 'public, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    context?: LoginContext,
  ) => {
    secureHeaders(res);
    try {
      const rest = pathname.slice(path.length);
      const method = req.method ?? 'GET';
      if (method === 'POST') checkSameOrigin(req);
      else if (method !== 'GET' && method !== 'HEAD') {
        res.setHeader('allow', 'GET, POST');
        throw new UiError(405, 'invalid_argument', `method ${method} is not allowed here`);
      }
      if (!rest.startsWith('/api/')) {
        if (method !== 'GET' && method !== 'HEAD') {
          throw new UiError(405, 'invalid_argument', 'pages are read with GET');
        }
        // Every page of the app is index.html; the app shows the login form when needed.
        const name = rest === '' || rest === '/' ? 'index.html' : rest.slice(1);
        if (rest === '') {
          res.writeHead(308, { location: `${path}/` }).end();
          return;
        }
        serveAsset(req, res, name.includes('/') ? '' : name);
        return;
      }
      const route = `${method} ${rest.slice('/api/'.length)}`;
      const sessionId = verify === undefined ? 'open' : sessions.check(req);
      if (route === 'GET session') {
        sendJson(res, 200, { authenticated: sessionId !== undefined, open: verify === undefined });
        return;
      }
      if (route === 'POST login') {
        await login(req, res, context?.authAttempts);
        return;
      }
      if (sessionId === undefined) {
        throw new UiError(
          401,
          'unauthorized',
          'log in first: open the dashboard and paste the token',
        );
      }
      const url = new URL(req.url ?? '/', 'http://dashboard');
      switch (route) {
        case 'POST logout':
          sessions.close(sessionId);
          // Its questions can no longer be answered (an open dashboard has no logins to end).
          if (verify !== undefined) questions.withdraw(sessionId);
          res.setHeader('set-cookie', cookie(req, '', 0));
          sendJson(res, 200, { authenticated: false });
          return;
        case 'GET connectors':
          api.connectors(ctx, res);
          return;
        case 'POST reconnect':
          await api.reconnect(ctx, req, res);
          return;
        case 'GET tools':
          await api.tools(ctx, url, res);
          return;
        case 'GET tool':
          api.tool(ctx, url, res);
          return;
        case 'POST call':
          await tryIt.call(ctx, questions, sessionId, req, res);
          return;
        case 'POST answer':
          await tryIt.answer(ctx, questions, sessionId, req, res);
          return;
        case 'GET prompts':
          await api.prompts(ctx, res);
          return;
        case 'GET resources':
          await api.resources(ctx, res);
          return;
        case 'GET calls':
          sendJson(res, 200, { calls: feed.recent() });
          return;
        case 'GET stats':
          sendJson(res, 200, feed.stats());
          return;
        case 'GET changes':
          await pinsApi.changes(pinsCtx, res);
          return;
        case 'POST accept':
          await pinsApi.accept(pinsCtx, req, res);
          return;
        case 'GET events':
          streams.open(res, () => verify === undefined || sessions.isOpen(sessionId));
          return;
        default:
          throw new UiError(404, 'not_found', `no API "${route}"`);
      }
    } catch (error) {
      if (!ToolError.isInstance(error)) {
        logger.error(`dashboard: ${req.method ?? 'GET'} ${pathname} failed`, {
          error: error instanceof Error ? error.message : String(error),
          ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
        });
      }
      if (res.headersSent) {
        res.end();
        return;
      }
      // A refused caller's body, or the rest of one too large, is not read: the connection ends
      // with the answer (kept alive, its next request would wait behind the unread bytes).
      if (error instanceof UiError && [401, 403, 413, 429].includes(error.status)) {
        res.shouldKeepAlive = false;
      }
      sendError(res, error);
    }
  };

  return {
    path,
    feed,
    handle,
    close: () => {
      streams.close();
      questions.close();
    },
  };
}

/** @throws {UiError} 429 `rate_limited`, with `Retry-After`, while the source is refused. */
function refuseIfLimited(
  res: ServerResponse,
  attempts: LoginContext['authAttempts'] | undefined,
): void {
  const wait = attempts?.retryAfter() ?? 0;
  if (wait === 0) return;
  res.setHeader('retry-after', String(wait));
  throw new UiError(
    429,
    'rate_limited',
    `too many failed logins from this address; try again in ${String(wait)} s`,
  );
}

/**
 * A login check for a static bearer token, compared in constant time.
 *
 * @example dashboardRoutes({ toolkit, verify: staticTokenVerifier(process.env.TOOLPLANE_TOKEN) })
 */
export function staticTokenVerifier(token: string): (given: string) => Promise<LoginProof | false> {
  const expected = Buffer.from(token);
  return (given) => {
    const bytes = Buffer.from(given);
    return Promise.resolve(
      bytes.length === expected.length && timingSafeEqual(bytes, expected) ? true : false,
    );
  };
}
