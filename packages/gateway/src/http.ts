import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ToolError, type Toolkit } from '@toolplane/toolkit';
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
  readonly transport: StreamableHTTPServerTransport;
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
    const server = createSessionServer(hub);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
      },
    });
    const session: HttpSession = { transport, server, lastSeen: Date.now(), busy: 0 };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const server = createSessionServer(hub);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once('close', () => {
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    checkAccess(req);
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname === '/healthz' && req.method === 'GET') {
      const connectors = toolkit.connectors();
      const ok = connectors.every((c) => c.state === 'connected');
      writeJson(res, 200, { status: ok ? 'ok' : 'degraded', sessions: sessions.size, connectors });
      return;
    }
    if (url.pathname !== path)
      throw new HttpError(404, ErrorCode.InvalidRequest, `not found; the MCP endpoint is ${path}`);
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      res.setHeader('allow', 'GET, POST, DELETE');
      throw new HttpError(
        405,
        ErrorCode.InvalidRequest,
        `method ${String(req.method)} is not allowed`,
      );
    }
    const body = req.method === 'POST' ? await readJson(req, maxBody) : undefined;
    if (options.stateless === true) {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        throw new HttpError(405, ErrorCode.InvalidRequest, 'this server is stateless: only POST');
      }
      await serveStateless(req, res, body);
      return;
    }
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (session === undefined) {
      if (typeof id === 'string') {
        throw new HttpError(
          404,
          ErrorCode.InvalidRequest,
          'the session is unknown or has ended; initialize a new one',
        );
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        throw new HttpError(
          400,
          ErrorCode.InvalidRequest,
          'no session; send an initialize request first',
        );
      }
      session = await openSession();
    }
    const active = session;
    const post = req.method === 'POST';
    active.lastSeen = Date.now();
    if (post) active.busy++;
    try {
      await active.transport.handleRequest(req, res, body);
      if (post) await finished(res);
    } finally {
      if (post) active.busy--;
      active.lastSeen = Date.now();
    }
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (error instanceof HttpError) {
        if (error.status === 401) res.setHeader('www-authenticate', 'Bearer');
        writeRpcError(res, error.status, error.rpcCode, error.message);
      } else {
        writeRpcError(
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

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpError(413, ErrorCode.InvalidRequest, `the body is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) {
        throw new HttpError(
          413,
          ErrorCode.InvalidRequest,
          `the body is larger than ${maxBytes} bytes`,
        );
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, ErrorCode.ParseError, 'the body ended before it was complete');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'the body is not valid JSON');
  }
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

function writeRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  writeJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
