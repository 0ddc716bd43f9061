// What a raw client (no SDK) sends the gateway: the `initialize` request it opens a session with,
// and requests over node:http, for the tests and benchmarks that speak to the gateway by hand.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';

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
