import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ErrorCode,
  isInitializeRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { ToolError, type Toolkit } from '@toolplane/toolkit';
import { HttpServerTransport, MAX_BATCH_SIZE, writeError } from './http-transport.js';
import { isJsonRpcMessage } from './jsonrpc.js';
import {
  createSessionServer,
  GatewayHub,
  type GatewayOptions,
  type McpServerInstance,
} from './server.js';
import type { ServedGateway } from './stdio.js';

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
  /** Largest request body accepted, in bytes (default 4 MiB; larger gets 413). */
  readonly maxBodyBytes?: number;
  /** Close the toolkit too when the gateway closes (default `false`: the toolkit is the caller's). */
  readonly closeToolkit?: boolean;
}

/** A gateway serving Streamable HTTP; see {@link serveHttp}. */
export interface HttpGateway extends ServedGateway {
  /** The endpoint, with the real port, e.g. `http://127.0.0.1:49152/mcp`. */
  readonly url: URL;
  /** How many sessions are open. */
  readonly sessionCount: number;
}

interface HttpSession {
  readonly transport: HttpServerTransport;
  readonly server: McpServerInstance;
  lastSeen: number;
  /** POSTs in progress; a session serving one is never idle. */
  busy: number;
}

const DEFAULT_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Serves `toolkit` as an MCP server over Streamable HTTP on node:http, one SDK transport and
 * server per session. Binds 127.0.0.1 unless told otherwise, checks `Host` and `Origin`
 * (DNS-rebinding protection), an optional bearer token and the body size, reaps idle sessions,
 * and answers `GET /healthz` with every connector's state. A malformed, oversized or truncated
 * request gets a JSON-RPC error; the server carries on.
 *
 * The toolkit is the caller's to run and close unless `closeToolkit` is set.
 *
 * @throws {ToolError} `invalid_config` for a bad port or path; the listen error (e.g. the port
 * is taken) as its `cause`.
 */
export async function serveHttp(toolkit: Toolkit, options: ServeHttpOptions): Promise<HttpGateway> {
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
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const idleMs = options.sessionIdleMs ?? DEFAULT_IDLE_MS;
  const token = options.token === undefined ? undefined : Buffer.from(`Bearer ${options.token}`);
  const origins = new Set(options.allowedOrigins ?? []);
  const hub = new GatewayHub(toolkit, options);
  await hub.negotiated;
  const sessions = new Map<string, HttpSession>();
  let hosts = new Set<string>();

  const checkAccess = (req: IncomingMessage): void => {
    const hostHeader = req.headers.host?.toLowerCase();
    if (hostHeader === undefined || !hosts.has(hostHeader)) {
      throw new HttpError(
        403,
        ErrorCode.InvalidRequest,
        `Host ${JSON.stringify(hostHeader ?? '')} is not allowed`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin) && !sameOrigin(origin, hosts)) {
      throw new HttpError(
        403,
        ErrorCode.InvalidRequest,
        `Origin ${JSON.stringify(origin)} is not allowed`,
      );
    }
    if (token !== undefined) {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== token.length || !timingSafeEqual(given, token)) {
        throw new HttpError(401, ErrorCode.InvalidRequest, 'a valid bearer token is required');
      }
    }
  };

  const openSession = async (): Promise<HttpSession> => {
    const id = randomUUID();
    const server = createSessionServer(hub);
    const transport = new HttpServerTransport(id);
    const session: HttpSession = { transport, server, lastSeen: Date.now(), busy: 0 };
    transport.onclose = () => {
      sessions.delete(id);
    };
    await server.connect(transport);
    sessions.set(id, session);
    return session;
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, post: Post) => {
    const server = createSessionServer(hub);
    const transport = new HttpServerTransport();
    res.once('close', () => {
      void server.close();
    });
    await server.connect(transport);
    transport.handlePost(res, post.messages, post.batch, req.headers);
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
      const session = sessions.get(id);
      if (session === undefined) {
        throw new HttpError(
          404,
          ErrorCode.InvalidRequest,
          'the session is unknown or has ended; initialize a new one',
        );
      }
      if (
        post?.messages.some((m) => (m as { method?: unknown }).method === 'initialize') === true
      ) {
        throw new HttpError(400, ErrorCode.InvalidRequest, 'this session is already initialized');
      }
      checkProtocolVersion(req);
      return session;
    }
    if (post === undefined || !post.messages.some((m) => isInitializeRequest(m))) {
      throw new HttpError(
        400,
        ErrorCode.InvalidRequest,
        'no session; send an initialize request first',
      );
    }
    if (post.messages.length > 1) {
      throw new HttpError(400, ErrorCode.InvalidRequest, 'initialize must be sent on its own');
    }
    return openSession();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    checkAccess(req);
    // The endpoint itself, as clients send it, needs no parsing.
    const pathname = req.url === path ? path : new URL(req.url ?? '/', 'http://gateway').pathname;
    if (pathname === '/healthz' && req.method === 'GET') {
      const connectors = toolkit.connectors();
      const ok = connectors.every((c) => c.state === 'connected');
      writeJson(res, 200, { status: ok ? 'ok' : 'degraded', sessions: sessions.size, connectors });
      return;
    }
    if (pathname !== path)
      throw new HttpError(404, ErrorCode.InvalidRequest, `not found; the MCP endpoint is ${path}`);
    const allowed = options.stateless === true ? ['POST'] : ['GET', 'POST', 'DELETE'];
    if (!allowed.includes(req.method ?? '')) {
      res.setHeader('allow', allowed.join(', '));
      throw new HttpError(
        405,
        ErrorCode.InvalidRequest,
        options.stateless === true
          ? 'this server is stateless: only POST'
          : `method ${String(req.method)} is not allowed`,
      );
    }
    if (req.method === 'POST') {
      checkPostHeaders(req);
      const post = toPost(await readJson(req, maxBody));
      if (options.stateless === true) {
        await serveStateless(req, res, post);
        return;
      }
      const found = sessionFor(req, post);
      const session = found instanceof Promise ? await found : found;
      session.lastSeen = Date.now();
      session.busy++;
      try {
        session.transport.handlePost(res, post.messages, post.batch, req.headers);
        await finished(res);
      } finally {
        session.busy--;
        session.lastSeen = Date.now();
      }
      return;
    }
    const session = await sessionFor(req, undefined);
    session.lastSeen = Date.now();
    if (req.method === 'DELETE') {
      await session.server.close();
      res.writeHead(200).end();
      return;
    }
    if (!accepts(req, 'text/event-stream')) {
      throw new HttpError(
        406,
        ErrorCode.InvalidRequest,
        'a GET stream must accept text/event-stream',
      );
    }
    session.transport.handleGet(res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (error instanceof HttpError) {
        if (error.status === 401) res.setHeader('www-authenticate', 'Bearer');
        writeError(res, error.status, error.rpcCode, error.message);
      } else {
        writeError(
          res,
          500,
          ErrorCode.InternalError,
          error instanceof Error ? error.message : String(error),
        );
      }
      // A body we refused to read is drained off the socket so the answer still arrives.
      req.resume();
    });
  });
  // A request whose body never arrives in full is dropped rather than held open.
  http.requestTimeout = 60_000;

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
  hosts = allowedHostHeaders(shownHost, port, options.allowedHosts ?? []);

  const reaper = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.busy === 0 && now - session.lastSeen >= idleMs) {
          void session.transport.close();
        }
      }
    },
    Math.max(10, Math.min(idleMs / 2, 60_000)),
  );
  reaper.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      clearInterval(reaper);
      const stopped = new Promise<void>((resolve) =>
        http.close(() => {
          resolve();
        }),
      );
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
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
  };
}

function allowedHostHeaders(host: string, port: number, extra: readonly string[]): Set<string> {
  const names = new Set(
    [host, 'localhost', '127.0.0.1', '[::1]', ...extra].map((n) => n.toLowerCase()),
  );
  const headers = new Set<string>();
  for (const name of names) {
    headers.add(`${name}:${port}`);
    // An extra entry may carry its own port; one without accepts the bare name too.
    headers.add(name);
  }
  return headers;
}

/** An Origin naming this server: http(s), an accepted host name, the port it listens on. */
function sameOrigin(origin: string, hosts: Set<string>): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // `url.host` drops a default port, which is never the one a loopback gateway listens on here.
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.port !== '' &&
    hosts.has(url.host)
  );
}

/**
 * The request's body parsed as JSON. Read with plain stream events: an async iterator over the
 * request cost every call several ticks and promises, and a body of its declared length is parsed
 * without waiting for the stream's end. A body over `maxBytes` is refused as soon as it is seen
 * (the rest is discarded by the server, never held); one cut short fails.
 */
function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = (): HttpError =>
    new HttpError(413, ErrorCode.InvalidRequest, `the body is larger than ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: HttpError): void => {
      req.off('data', onData).off('end', onEnd).off('error', onBroken).off('close', onBroken);
      if (error !== undefined) {
        reject(error);
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(chunks, size).toString('utf8')));
      } catch {
        reject(new HttpError(400, ErrorCode.ParseError, 'the body is not valid JSON'));
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        settle(tooLarge());
        return;
      }
      chunks.push(chunk);
      // A body of the length declared is complete; its 'end' would only come a tick or two later.
      if (size === declared) settle();
    };
    const onEnd = (): void => {
      settle();
    };
    const onBroken = (): void => {
      settle(new HttpError(400, ErrorCode.ParseError, 'the body ended before it was complete'));
    };
    req.on('data', onData).once('end', onEnd).once('error', onBroken).once('close', onBroken);
  });
}

function finished(res: ServerResponse): Promise<void> {
  if (res.writableEnded || res.destroyed) return Promise.resolve();
  return new Promise((resolve) =>
    res.once('close', () => {
      resolve();
    }),
  );
}

function writeJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** A POST's messages, and whether they came as a batch (answered as one, too). */
interface Post {
  readonly messages: readonly JSONRPCMessage[];
  readonly batch: boolean;
}

function toPost(body: unknown): Post {
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  if (messages.length === 0 || messages.length > MAX_BATCH_SIZE) {
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      `a batch holds 1 to ${MAX_BATCH_SIZE} messages, this one ${messages.length}`,
    );
  }
  if (!messages.every(isJsonRpcMessage)) {
    throw new HttpError(400, ErrorCode.InvalidRequest, 'the body is not a JSON-RPC 2.0 message');
  }
  return { messages, batch };
}

function accepts(req: IncomingMessage, type: string): boolean {
  // A list of media ranges; MCP clients name both types outright, so a substring check fits.
  return req.headers.accept?.includes(type) === true;
}

/** A POST must accept JSON and SSE answers, and send JSON. */
function checkPostHeaders(req: IncomingMessage): void {
  if (!accepts(req, 'application/json') || !accepts(req, 'text/event-stream')) {
    throw new HttpError(
      406,
      ErrorCode.InvalidRequest,
      'a POST must accept both application/json and text/event-stream',
    );
  }
  const type = req.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, ErrorCode.InvalidRequest, 'the body must be application/json');
  }
}

function checkProtocolVersion(req: IncomingMessage): void {
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      `unsupported MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
}
