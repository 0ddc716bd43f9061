import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** How many redirects a request follows (as `fetch` does), here and in the HTTP transport. */
export const MAX_REDIRECTS = 20;

const agents = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
} as const;

/**
 * A `fetch` on node:http(s) with keep-alive agents, for the SDK's HTTP client transports.
 *
 * Why: Node's built-in fetch (undici) writes a request's headers and body apart and runs each
 * body through several WHATWG streams; on loopback that made a JSON-RPC round trip ~30% slower
 * than node:http, which writes both at once. Requests it does not cover (a `Request` object, a
 * streamed, Blob or FormData body) go to the global fetch, so it stands in for fetch anywhere.
 *
 * Follows fetch's contract where the SDK depends on it: `redirect` ('follow' by default, 'manual',
 * 'error'), `signal` (aborting rejects, or errors the body being read, with the signal's reason),
 * network failures as `TypeError('fetch failed')` with the cause, a web `ReadableStream` body.
 */
export const nodeHttpFetch: typeof fetch = createNodeHttpFetch(toResponse);

/** What the request was, for a {@link ResponseMaker}. */
export interface SentRequest {
  readonly method: string;
  readonly body: string | Uint8Array | undefined;
}

/**
 * Makes the fetch `Response` of a node:http response (not a redirect being followed). It owns
 * `res` from then on; destroying it with the fetch's abort reason is how an abort reaches it.
 */
export type ResponseMaker = (
  res: IncomingMessage,
  request: SentRequest,
) => Response | Promise<Response>;

/**
 * {@link nodeHttpFetch} with another way of making responses, e.g. one that reads some of the
 * body first.
 *
 * @internal
 */
export function createNodeHttpFetch(respond: ResponseMaker): typeof fetch {
  return (input, init) => {
    if (input instanceof Request) return fetch(input, init);
    const body = encodeBody(init?.body);
    if (body === unsupported) return fetch(input, init);
    return send(new URL(input), init ?? {}, body, 0, respond);
  };
}

const unsupported = Symbol('unsupported');

interface EncodedBody {
  readonly data: string | Uint8Array;
  readonly type?: string;
}

function encodeBody(body: RequestInit['body']): EncodedBody | undefined | typeof unsupported {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return { data: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams) {
    return { data: body.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  }
  if (body instanceof Uint8Array) return { data: body };
  if (body instanceof ArrayBuffer) return { data: new Uint8Array(body) };
  return unsupported;
}

function headersOf(init: RequestInit, body: EncodedBody | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  // The SDK passes a Headers already; copying it into another first cost every request.
  const given = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
  given.forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== undefined) {
    if (body.type !== undefined) headers['content-type'] ??= body.type;
    headers['content-length'] = String(
      typeof body.data === 'string' ? Buffer.byteLength(body.data) : body.data.byteLength,
    );
  }
  return headers;
}

function send(
  url: URL,
  init: RequestInit,
  body: EncodedBody | undefined,
  redirects: number,
  respond: ResponseMaker,
): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') {
    return Promise.reject(new TypeError(`fetch failed: unsupported protocol ${protocol}`));
  }
  const method = (init.method ?? 'GET').toUpperCase();
  return new Promise<Response>((resolve, reject) => {
    const request = (protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method,
      headers: headersOf(init, body),
      agent: agents[protocol],
    });
    let response: IncomingMessage | undefined;
    const onAbort = (): void => {
      const reason = signal?.reason as Error;
      if (response === undefined) reject(reason);
      request.destroy(reason);
      response?.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const release = (): void => signal?.removeEventListener('abort', onAbort);
    request.once('error', (error) => {
      release();
      if (response === undefined && signal?.aborted !== true) {
        reject(new TypeError('fetch failed', { cause: error }));
      }
    });
    request.once('response', (res) => {
      response = res;
      res.once('close', release);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (isRedirect(status) && location !== undefined && init.redirect !== 'manual') {
        res.resume();
        release();
        if (init.redirect === 'error' || redirects === MAX_REDIRECTS) {
          reject(new TypeError('fetch failed', { cause: new Error(`redirect to ${location}`) }));
          return;
        }
        // 303, and 301/302 after a POST, turn the request into a body-less GET (as fetch does).
        const toGet = status === 303 || ((status === 301 || status === 302) && method === 'POST');
        const next: RequestInit = toGet ? { ...init, method: 'GET', body: null } : init;
        const nextBody = toGet ? undefined : body;
        resolve(send(new URL(location, url), next, nextBody, redirects + 1, respond));
        return;
      }
      resolve(respond(res, { method, body: body?.data }));
    });
    request.end(body?.data);
  });
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The response's headers as fetch `Headers`, repeated ones kept. */
export function headersOfResponse(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    headers.append(raw[i] as string, raw[i + 1] as string);
  }
  return headers;
}

/** The plain fetch `Response`: status, headers, and the body as a web stream. */
export function toResponse(res: IncomingMessage, { method }: SentRequest): Response {
  const status = res.statusCode ?? 0;
  const bodiless = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  if (bodiless) res.resume();
  return new Response(bodiless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage ?? '',
    headers: headersOfResponse(res),
  });
}
