import { StringDecoder } from 'node:string_decoder';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import {
  createNodeHttpFetch,
  headersOfResponse,
  toResponse,
  type SentRequest,
} from './node-fetch.js';

/** How much of a stream is read looking for its first event before it is passed on as it is. */
const MAX_FIRST_EVENT = 64 * 1024;

/**
 * A `fetch` for the SDK's Streamable HTTP client transport ({@link nodeHttpFetch} underneath)
 * that hands a POST's answer over as JSON when the server's event stream opens with it.
 *
 * Why: servers answer most requests with an event stream holding a single event, the response,
 * and the SDK runs every stream through a text decoder and an event parser, web streams each;
 * in a gateway that cost ~300 µs a call, more than all its own work. Here the first event is read
 * straight off the socket: when it is the response to the request sent, the fetch answers with
 * an `application/json` response holding that message, as a server answering in JSON would.
 * Anything else (a notification, progress or server request first; an event with no data, as a
 * resumable server's priming event; a stream that breaks or ends first) is passed on as the
 * event stream it was, bytes already read included. After its response a server should end the
 * stream (the spec says so); anything it still sends there is read and dropped.
 */
export const mcpHttpFetch: typeof fetch = createNodeHttpFetch(answerAsJson);

function answerAsJson(res: IncomingMessage, request: SentRequest): Response | Promise<Response> {
  const type = res.headers['content-type'] ?? '';
  const id = request.method === 'POST' ? requestIdOf(request.body) : undefined;
  if (id === undefined || res.statusCode !== 200 || !type.includes('text/event-stream')) {
    return toResponse(res, request);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const decoder = new StringDecoder('utf8');
    let text = '';
    const stop = (): void => {
      res.off('data', onData).off('end', onEnd).off('error', onError);
      res.pause();
    };
    const passOn = (failure?: Error): void => {
      stop();
      resolve(replay(res, chunks, failure));
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      text += decoder.write(chunk);
      const event = firstEvent(text);
      if (event === undefined) {
        if (text.length > MAX_FIRST_EVENT) passOn();
        return;
      }
      const answer = event.type === 'message' ? responseTo(id, event.data) : undefined;
      if (answer === undefined) {
        passOn();
        return;
      }
      stop();
      // The rest of the stream, normally just its end, is drained so the connection is reused.
      res.resume();
      const headers = new HeaderView(res.headers) as unknown as Headers;
      // A stand-in for Response (see JsonAnswer); nothing on this path checks `instanceof`.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
      resolve(new JsonAnswer(answer, res.statusMessage ?? '', headers));
    };
    const onEnd = (): void => {
      passOn();
    };
    // An abort destroys the response with the signal's reason; like any break, the body passed
    // on fails with it, as reading fetch's body would.
    const onError = (error: Error): void => {
      passOn(error);
    };
    // Errors after this reader let go belong to whoever reads on; none may go unheard.
    res.on('error', ignore);
    res.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

/** The ID of the one JSON-RPC request a POST body holds, if it holds one. */
function requestIdOf(body: SentRequest['body']): string | number | undefined {
  if (typeof body !== 'string' || !body.startsWith('{')) return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; id?: unknown };
    const { method, id } = message;
    if (typeof method !== 'string') return undefined;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The first complete server-sent event in `text`: its type and its data lines joined. */
function firstEvent(text: string): { type: string; data: string } | undefined {
  const normalized = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  const end = normalized.indexOf('\n\n');
  if (end === -1) return undefined;
  let type = 'message';
  const data: string[] = [];
  for (const line of normalized.slice(0, end).split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const raw = colon === -1 ? '' : line.slice(colon + 1);
    const value = raw.startsWith(' ') ? raw.slice(1) : raw;
    if (field === 'data') data.push(value);
    else if (field === 'event') type = value;
  }
  return { type, data: data.join('\n') };
}

/** `data`, parsed too, when it is the JSON-RPC response (result or error) to request `id`. */
function responseTo(id: string | number, data: string): ParsedAnswer | undefined {
  if (!data.includes('"id"')) return undefined;
  try {
    const message = JSON.parse(data) as Record<string, unknown> | null;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
    if ('method' in message || message.id !== id) return undefined;
    return 'result' in message || 'error' in message ? { text: data, value: message } : undefined;
  } catch {
    return undefined;
  }
}

/** An answer's text and the value it parses to (so that it is parsed once). */
interface ParsedAnswer {
  readonly text: string;
  readonly value: unknown;
}

/**
 * The event stream as it came: the chunks already read, then the rest of `res`; `failure`, when
 * the stream broke while being read, errors it after the chunks (as reading it would have).
 */
function replay(res: IncomingMessage, chunks: readonly Buffer[], failure?: Error): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytes(chunk));
      if (failure !== undefined) {
        controller.error(failure);
        return;
      }
      if (res.readableEnded) {
        controller.close();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        controller.enqueue(bytes(chunk));
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.once('end', () => {
        controller.close();
      });
      res.once('error', (error) => {
        controller.error(error);
      });
    },
    pull() {
      if (!res.readableEnded) res.resume();
    },
    cancel(reason) {
      res.destroy(reason instanceof Error ? reason : undefined);
    },
  });
  return new Response(body, {
    status: res.statusCode ?? 200,
    statusText: res.statusMessage ?? '',
    headers: headersOfResponse(res),
  });
}

function ignore(): void {
  // Heard elsewhere.
}

function bytes(chunk: Buffer): Uint8Array {
  return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * An answer handed over as JSON: what readers of fetch's `Response` use (status, headers, the
 * body once, as text, JSON, bytes or a stream; `clone`), without undici's `Response`, whose
 * constructor and `json()` alone cost a gateway ~120 µs a call. Given out as a `Response`.
 */
class JsonAnswer {
  readonly ok = true;
  readonly status = 200;
  readonly statusText: string;
  readonly headers: Headers;
  readonly redirected = false;
  readonly type = 'basic';
  readonly url = '';
  #text: string | undefined;
  /** What the text parses to, handed to the first `json()` (parsing it was how it was found). */
  #value: { readonly parsed: unknown } | undefined;
  #stream: ReadableStream<Uint8Array> | undefined;

  constructor(answer: ParsedAnswer, statusText: string, headers: Headers) {
    this.#text = answer.text;
    this.#value = { parsed: answer.value };
    this.statusText = statusText;
    this.headers = headers;
  }

  get bodyUsed(): boolean {
    return this.#text === undefined;
  }

  /** The body as a stream, made on first use; reading it uses the body up. */
  get body(): ReadableStream<Uint8Array> {
    this.#stream ??= new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          controller.enqueue(new TextEncoder().encode(this.#take()));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return this.#stream;
  }

  text(): Promise<string> {
    return settle(() => this.#take());
  }

  json(): Promise<unknown> {
    return settle(() => {
      const value = this.#value;
      const text = this.#take();
      return value === undefined ? (JSON.parse(text) as unknown) : value.parsed;
    });
  }

  bytes(): Promise<Uint8Array> {
    return settle(() => new TextEncoder().encode(this.#take()));
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return settle(() => new TextEncoder().encode(this.#take()).buffer);
  }

  blob(): Promise<Blob> {
    return settle(() => new Blob([this.#take()], { type: 'application/json' }));
  }

  formData(): Promise<never> {
    return Promise.reject(new TypeError('a JSON body cannot be read as form data'));
  }

  clone(): JsonAnswer {
    const text = this.#take();
    this.#text = text;
    return new JsonAnswer(
      { text, value: JSON.parse(text) as unknown },
      this.statusText,
      this.headers,
    );
  }

  #take(): string {
    const text = this.#text;
    if (text === undefined) throw new TypeError('Body is unusable: Body has already been read');
    this.#text = undefined;
    this.#value = undefined;
    return text;
  }
}

function settle<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * The read side of fetch's `Headers` over node:http's parsed headers (names already lower-case),
 * with `content-type` set to JSON and the framing headers of the stream it came from dropped.
 */
class HeaderView {
  readonly #values = new Map<string, string>();

  constructor(headers: IncomingHttpHeaders) {
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || name === 'content-length' || name === 'transfer-encoding') {
        continue;
      }
      this.#values.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    this.#values.set('content-type', 'application/json');
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    const cookies = this.#values.get('set-cookie');
    return cookies === undefined ? [] : [cookies];
  }

  forEach(callback: (value: string, name: string, headers: HeaderView) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}
