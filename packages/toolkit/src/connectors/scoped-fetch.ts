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
 * Every connector over HTTP uses it; pass it as `fetch` to your own
 * `StreamableHTTPClientTransport` for the same effect.
 */
export function requestScopedFetch(options: RequestScopedFetchOptions = {}): typeof fetch {
  return watchedFetch(options);
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

/** How an event stream that may carry a request's answer ended; see {@link WatchedFetchOptions}. */
export interface StreamEnd {
  /** The JSON-RPC ID of the request a POST sent; `undefined` for a GET. */
  readonly requestId: string | number | undefined;
  /** The `Last-Event-ID` a GET sent to resume an earlier stream, if it did. */
  readonly resumedFrom: string | undefined;
  /** False for a resuming GET that got no event stream (see `error`). */
  readonly opened: boolean;
  /** The ID of the last event the stream carried: where resuming it would start. */
  readonly lastEventId: string | undefined;
  /**
   * Whether it carried a JSON-RPC response (a result or an error). A stream only carries the
   * answer to the request that opened it, or to the one whose stream it resumes: this is that.
   */
  readonly answered: boolean;
  /**
   * Why it ended, when it broke rather than closed; for a resuming GET, also the HTTP status or
   * network error that kept it from opening.
   */
  readonly error?: unknown;
}

/** {@link RequestScopedFetchOptions} and what a connector hears besides. */
export interface WatchedFetchOptions extends RequestScopedFetchOptions {
  /**
   * Hears every POST's event stream end, however it ended (not by an abort), and every GET that
   * resumed a stream (`Last-Event-ID`): when its stream ends, or when it got no stream at all.
   */
  readonly onStreamEnd?: (end: StreamEnd) => void;
}

/** {@link requestScopedFetch} with the connector's stream watching; see {@link StreamEnd}. */
export function watchedFetch(options: WatchedFetchOptions = {}): typeof fetch {
  const base = options.fetch ?? mcpHttpFetch;
  const observe = options.onRelatedRequest;
  const broke = options.onStreamError;
  const ended = options.onStreamEnd;
  return async (input, init) => {
    const outer = init?.signal;
    if (outer === undefined || outer === null) return base(input, init);
    outer.throwIfAborted();
    const inner = new AbortController();
    const release = follow(outer, inner);
    const resumedFrom = isGet(init) ? lastEventIdOf(init) : undefined;
    const endWithout = (error: unknown): void => {
      if (resumedFrom !== undefined && !inner.signal.aborted) {
        const end = { requestId: undefined, resumedFrom, opened: false, lastEventId: undefined };
        ended?.({ ...end, answered: false, error });
      }
    };
    let response: Response;
    try {
      response = await base(input, { ...init, signal: inner.signal });
    } catch (error) {
      release();
      endWithout(error);
      throw error;
    }
    // A JSON answer is read at once; an event stream may last as long as the call runs, so it
    // stays followed until the stream is done with.
    const streaming = response.headers.get('content-type')?.includes('text/event-stream') === true;
    if (!response.ok) endWithout(new Error(`HTTP ${response.status}`));
    else if (!streaming) endWithout(new Error('the answer was not an event stream'));
    // The body is only touched for a stream: a JSON answer's is left for the SDK to read.
    const body = streaming && response.ok ? response.body : null;
    if (body === null) {
      release();
      return response;
    }
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    let answered = false;
    const sent =
      observe === undefined && broke === undefined && ended === undefined
        ? {}
        : sentMessage(init?.body);
    const requestId = resumedFrom === undefined ? sent.id : undefined;
    const callId = sent.method === 'tools/call' ? sent.id : undefined;
    const watching = ended !== undefined && (requestId !== undefined || resumedFrom !== undefined);
    const scan =
      callId === undefined && !watching
        ? undefined
        : new EventStreamScan({
            onRequest:
              callId === undefined || observe === undefined
                ? undefined
                : (id) => {
                    observe(callId, id);
                  },
            onResponse: () => {
              answered = true;
            },
          });
    const report = (error?: unknown): void => {
      if (!watching || inner.signal.aborted) return;
      const end = {
        requestId,
        resumedFrom,
        opened: true,
        lastEventId: scan?.lastEventId,
        answered,
      };
      ended(error === undefined ? end : { ...end, error });
    };
    const watched = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              release();
              controller.close();
              report();
            } else {
              scan?.push(value);
              controller.enqueue(value);
            }
          } catch (error) {
            release();
            controller.error(error);
            if (!inner.signal.aborted) broke?.(sent.id, error);
            report(error);
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

function isGet(init: RequestInit | undefined): boolean {
  return (init?.method ?? 'GET').toUpperCase() === 'GET';
}

function lastEventIdOf(init: RequestInit | undefined): string | undefined {
  const value = new Headers(init?.headers).get('last-event-id');
  return value === null || value === '' ? undefined : value;
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
 * keeps what a connector needs: the last event ID, and the JSON-RPC requests and responses.
 */
class EventStreamScan {
  /** The ID of the last complete event that had one. */
  lastEventId: string | undefined;
  readonly #onRequest: ((id: string | number) => void) | undefined;
  readonly #onResponse: () => void;
  readonly #decoder = new TextDecoder();
  // The pieces of a line that spans chunks, joined once the line ends: a long line costs once.
  #partial: string[] = [];
  #data: string[] = [];
  #id: string | undefined;

  constructor(hooks: {
    onRequest: ((id: string | number) => void) | undefined;
    onResponse: () => void;
  }) {
    this.#onRequest = hooks.onRequest;
    this.#onResponse = hooks.onResponse;
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
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment (keep-alive)
    const field = colon === -1 ? line : line.slice(0, colon);
    const raw = colon === -1 ? '' : line.slice(colon + 1);
    const value = raw.startsWith(' ') ? raw.slice(1) : raw;
    if (field === 'data') this.#data.push(value);
    // An empty ID does not make a stream resumable (the SDK ignores it too).
    else if (field === 'id' && value !== '' && !value.includes('\0')) this.#id = value;
  }

  #dispatch(): void {
    if (this.#id !== undefined) this.lastEventId = this.#id;
    this.#id = undefined;
    const data = this.#data.join('\n');
    this.#data = [];
    // Only requests and responses carry an ID, and only requests (and notifications) a method:
    // a large answer is not parsed a second time unless it mentions "method".
    if (!data.includes('"id"')) return;
    if (!data.includes('"method"')) {
      this.#onResponse();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return; // Not JSON-RPC: the SDK reports it.
    }
    for (const message of Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]) {
      if (typeof message !== 'object' || message === null) continue;
      const { method, id } = message as { method?: unknown; id?: unknown };
      if (typeof id !== 'string' && typeof id !== 'number') continue;
      if (typeof method === 'string') this.#onRequest?.(id);
      else if (method === undefined) this.#onResponse();
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
