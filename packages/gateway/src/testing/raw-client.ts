// What a raw client (no SDK) sends the gateway: the `initialize` request it opens a session with,
// and requests over node:http, for the tests and benchmarks that speak to the gateway by hand.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/** An `initialize` request: ID 1, protocol 2025-06-18, no client capabilities. */
export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
} as const;

/** {@link INITIALIZE_REQUEST} as an HTTP request body. */
export const INITIALIZE_BODY = JSON.stringify(INITIALIZE_REQUEST);

/** The headers a Streamable HTTP POST carries. */
export const POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

/**
 * Opens a request over node:http to `url` (a POST with {@link POST_HEADERS} and `headers` unless
 * told otherwise), so a test can send what fetch refuses to (a foreign Host, a broken or endless
 * body) and give up on it when it likes. `onResponse` gets the response once its headers came;
 * the caller writes or ends the body.
 */
export function openRequest(
  url: URL,
  onResponse: (response: IncomingMessage) => void,
  options: {
    headers?: Record<string, string | string[]>;
    method?: string;
    path?: string;
    /** The loopback address to send from (127.0.0.2, …), so tests can play several sources. */
    localAddress?: string;
  } = {},
): ClientRequest {
  return request(
    {
      host: url.hostname,
      // A connection of its own, so that it is sent from the address asked for.
      ...(options.localAddress === undefined
        ? {}
        : { localAddress: options.localAddress, agent: false }),
      port: url.port,
      path: options.path ?? url.pathname,
      method: options.method ?? 'POST',
      headers: { ...POST_HEADERS, ...options.headers },
    },
    onResponse,
  );
}

/**
 * POSTs {@link INITIALIZE_BODY} with `headers` (an array value: one header line each, which
 * fetch cannot send) and resolves the answer's status and `WWW-Authenticate` challenge.
 */
export function initializeWith(
  url: URL,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; www: string }> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      url,
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, www: res.headers['www-authenticate'] ?? '' });
        });
      },
      { headers },
    );
    req.on('error', reject);
    req.end(INITIALIZE_BODY);
  });
}

/**
 * The status a raw `initialize` gets, sent from `localAddress` (127.0.0.2, … are loopback too:
 * each plays a source of its own) on a connection of its own, with `headers`; with `whole`
 * false only its first byte is sent (so only a refusal gets an answer).
 */
export function initializeFrom(
  url: URL,
  localAddress: string,
  headers: Record<string, string> = {},
  whole = true,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      url,
      (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
      },
      {
        localAddress,
        headers: whole ? headers : { ...headers, 'content-length': String(INITIALIZE_BODY.length) },
      },
    );
    req.on('error', reject);
    if (whole) req.end(INITIALIZE_BODY);
    else req.write(INITIALIZE_BODY.slice(0, 1));
  });
}

/** A request {@link heldRequest} keeps in flight. */
export interface HeldRequest {
  readonly socket: Socket;
  /** The status, when the server answered before the body was whole (a refusal). */
  readonly status?: number;
  /** Sends the rest of the body and resolves with the answer's status. */
  finish(): Promise<number>;
}

/**
 * Opens a request from `localAddress` with `headers` whose body (two bytes announced) is half
 * sent, so it stays in flight; resolves with its status if the server answers at once, else once
 * the server has begun to read it.
 */
export function heldRequest(
  url: URL,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<HeldRequest> {
  return new Promise((resolve, reject) => {
    let answered: ((status: number) => void) | undefined;
    const status = new Promise<number>((resolveStatus) => {
      answered = resolveStatus;
    });
    const req = openRequest(
      url,
      (res) => {
        res.resume();
        answered?.(res.statusCode ?? 0);
        resolve({
          status: res.statusCode ?? 0,
          socket: req.socket as Socket,
          finish: () => status,
        });
      },
      { localAddress, headers: { ...headers, 'content-length': '2' } },
    );
    req.on('error', reject);
    req.write('{', () => {
      // Answered or not, a held request is one the server has begun to read.
      setImmediate(() => {
        resolve({
          socket: req.socket as Socket,
          finish: () => {
            req.end('}');
            return status;
          },
        });
      });
    });
  });
}

/**
 * Opens a socket that sends part of a request's headers and then nothing more, from
 * `localAddress` when given.
 */
export function trickle(url: URL, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const to = { port: Number(url.port), host: url.hostname };
    const socket = connect(localAddress === undefined ? to : { ...to, localAddress }, () => {
      socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `);
      // Read whatever the server answers, so its closing the connection is seen.
      socket.resume();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** Resolves once `socket` has closed. */
export function closed(socket: Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('close', () => {
      resolve();
    });
  });
}
