import { mcpHttpFetch } from './mcp-fetch.js';

/**
 * A `fetch` for the SDK's HTTP client transports that gives every request a signal of its own.
 *
 * Why: the transports pass one connection-long signal to every request, and undici's `Request`
 * only drops its abort listener when the request is garbage-collected, so a busy connection piles
 * up thousands of listeners (Node warns past 1,500, writing a stack trace to stderr on every
 * further request, which costs milliseconds a call). Here the long-lived signal holds a single
 * listener while requests are in flight; a request counts as done once its answer arrives (JSON)
 * or its event stream is read, cancelled or failed. Aborting the long-lived signal still aborts
 * every request and stream in progress.
 *
 * Connectors use it for servers on the older HTTP+SSE transport (Streamable HTTP has a transport
 * of its own, `StreamableHttpClientTransport`); pass it as `fetch` to the SDK's
 * `StreamableHTTPClientTransport` for the same effect.
 */
export function requestScopedFetch(options: RequestScopedFetchOptions = {}): typeof fetch {
  const base = options.fetch ?? mcpHttpFetch;
  const observe = options.onRelatedRequest;
  const broke = options.onStreamError;
  return async (input, init) => {
    const outer = init?.signal;
    if (outer === undefined || outer === null) return base(input, init);
    outer.throwIfAborted();
    const inner = new AbortController();
    const release = follow(outer, inner);
    let response: Response;
    try {
      response = await base(input, { ...init, signal: inner.signal });
    } catch (error) {
      release();
      throw error;
    }
    // A JSON answer is read at once; an event stream may last as long as the call runs, so it
    // stays followed until the stream is done with. Only a stream's body is touched.
    const streaming = response.headers.get('content-type')?.includes('text/event-stream') === true;
    const body = streaming && response.ok ? response.body : null;
    if (body === null) {
      release();
      return response;
    }
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    const sent = observe === undefined && broke === undefined ? {} : sentMessage(init?.body);
    const callId = sent.method === 'tools/call' ? sent.id : undefined;
    const scan =
      callId === undefined || observe === undefined
        ? undefined
        : new EventStreamScan((id) => {
            observe(callId, id);
          });
    const watched = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              release();
              controller.close();
            } else {
              scan?.push(value);
              controller.enqueue(value);
            }
          } catch (error) {
            release();
            controller.error(error);
            if (!inner.signal.aborted) broke?.(sent.id, error);
          }
        },
        async cancel(reason) {
          release();
          await reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Options of {@link requestScopedFetch}. */
export interface RequestScopedFetchOptions {
  /**
   * The fetch to wrap (default {@link mcpHttpFetch}: node:http with keep-alive, a one-event
   * answer handed over as JSON).
   */
  readonly fetch?: typeof fetch;
  /**
   * Hears every JSON-RPC request a server sends on the event stream answering a `tools/call`
   * POST: the call's JSON-RPC ID and the request's; how server requests are tied to calls.
   */
  readonly onRelatedRequest?: (callId: string | number, requestId: string | number) => void;
  /**
   * Hears an event stream that broke (not by an abort) before it ended, with the JSON-RPC ID of
   * the request whose answer it was carrying (`undefined` for a GET stream).
   */
  readonly onStreamError?: (requestId: string | number | undefined, error: unknown) => void;
}

/** The method and ID of a single JSON-RPC message sent as a request body. */
function sentMessage(body: unknown): { method?: unknown; id?: string | number } {
  if (typeof body !== 'string') return {};
  try {
    const { method, id } = JSON.parse(body) as { method?: unknown; id?: unknown };
    return typeof id === 'string' || typeof id === 'number' ? { method, id } : { method };
  } catch {
    return {};
  }
}

/**
 * Reads an event stream's chunks as they pass (server-sent events, as the SDK writes them) and
 * reports the ID of every JSON-RPC request in it.
 */
class EventStreamScan {
  readonly #onRequest: (id: string | number) => void;
  readonly #decoder = new TextDecoder();
  // The pieces of a line that spans chunks, joined once the line ends: a long line costs once.
  #partial: string[] = [];
  #data: string[] = [];

  constructor(onRequest: (id: string | number) => void) {
    this.#onRequest = onRequest;
  }

  push(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.#partial.push(text.slice(start, end));
      const line = this.#partial.join('');
      this.#partial = [];
      this.#line(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = end + 1;
    }
    if (start < text.length) this.#partial.push(text.slice(start));
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith('data:')) this.#data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }

  #dispatch(): void {
    const data = this.#data.join('\n');
    this.#data = [];
    // Only requests carry both an ID and a method: a large answer is not parsed a second time
    // unless it mentions both.
    if (!data.includes('"id"') || !data.includes('"method"')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return; // Not JSON-RPC: the SDK reports it.
    }
    for (const message of Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]) {
      if (typeof message !== 'object' || message === null) continue;
      const { method, id } = message as { method?: unknown; id?: unknown };
      if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) {
        this.#onRequest(id);
      }
    }
  }
}

interface Followers {
  readonly requests: Set<AbortController>;
  readonly stop: () => void;
}

// The requests in flight per long-lived signal, which holds one listener while there are any.
const followers = new WeakMap<AbortSignal, Followers>();

/** Aborts `inner` when `outer` aborts, until the returned function is called. */
function follow(outer: AbortSignal, inner: AbortController): () => void {
  let group = followers.get(outer);
  if (group === undefined) {
    const requests = new Set<AbortController>();
    const abortAll = (): void => {
      followers.delete(outer);
      for (const request of requests) request.abort(outer.reason);
      requests.clear();
    };
    outer.addEventListener('abort', abortAll, { once: true });
    group = {
      requests,
      stop: () => {
        outer.removeEventListener('abort', abortAll);
      },
    };
    followers.set(outer, group);
  }
  const { requests, stop } = group;
  requests.add(inner);
  return () => {
    if (!requests.delete(inner) || requests.size > 0) return;
    if (followers.get(outer)?.requests === requests) followers.delete(outer);
    stop();
  };
}
