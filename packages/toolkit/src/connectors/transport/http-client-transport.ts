import { StringDecoder } from 'node:string_decoder';
import {
  SdkErrorCode,
  SdkHttpError,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import type { RequestId } from '@toolplane/toolmodel/wire';
import { createParser } from 'eventsource-parser';
import {
  httpAgent,
  asError,
  header,
  isMessage,
  isRedirect,
  mediaType,
  redirectNote,
  suffix,
  watchServerCloses,
  type Answer,
} from './http-agent.js';
import { isModernRequest, parseErrorAnswer, perRequestHeaders } from './http-request-headers.js';
import { postAuthorized } from './http-transport-auth.js';
import { MAX_REDIRECTS } from './node-fetch.js';
import {
  lostAnswer,
  postFailureCode,
  RECONNECT,
  type StreamableHttpClientTransportOptions,
  type StreamContext,
} from './http-transport-parts.js';

export type { StreamableHttpClientTransportOptions } from './http-transport-parts.js';

/**
 * The MCP Streamable HTTP transport, client side, on undici's connection pool.
 *
 * Why not the SDK's: a connector's calls are a gateway's hot path, and the SDK's transport goes
 * through `fetch`: a `Headers` object and a `Request` per message, web streams for every body, a
 * zod parse of every message. Even over the toolkit's leanest `fetch` (node:http, an answer
 * handed over as JSON) that cost a gateway ~150 µs of CPU a call more than this transport on
 * undici's `request`. The protocol is the SDK's: the same headers, the session and protocol
 * version, a JSON answer or an event stream per POST, the session's GET stream opened once
 * initialized (405 means none) and reopened when it ends, redirects followed within the origin,
 * resumption with `Last-Event-ID` after the server's `retry` delay.
 *
 * What it adds: an answer that can no longer arrive fails its request at once (an error response
 * with `ConnectionClosed`), where the SDK's would leave it to time out. That is a stream that ends
 * or breaks before the answer with no event ID to resume from, a resumption the server refuses,
 * and a resumed stream that ends without the answer or a new event ID. And it reports what may
 * mean a lost server or session (see `onSessionDoubt`), including a server with no GET stream
 * (a stateless one) that exits while a connection to it is kept alive.
 */
export class StreamableHttpClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /**
   * One POST per request, so on a 2026-07-28 connection the SDK cancels a request by aborting
   * its `requestSignal` (closing the response stream), as that revision asks.
   */
  readonly hasPerRequestStream = true;

  readonly #url: URL;
  readonly #origin: string;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #options: StreamableHttpClientTransportOptions;
  readonly #closing = new AbortController();
  readonly #timers = new Set<NodeJS.Timeout>();
  #started = false;
  #sessionId: string | undefined;
  /** The OAuth client's latest `Authorization` value (see the `auth` option). */
  #authorization: string | undefined;
  #protocolVersion: string | undefined;
  /** The server's `retry` field, last seen: the delay before any reconnection. */
  #retryMs: number | undefined;
  /** Whether the session's GET stream is open (it tells of a server's end by ending). */
  #sessionStreamOpen = false;
  /**
   * Whether a request went out since a closed connection was last reported: a server that closes
   * every connection after its answer then costs one check a request, not an endless round of
   * checks (the check's own ping closing a connection too).
   */
  #sentSinceDoubt = false;
  #unwatch: (() => void) | undefined;
  readonly #onServerClose = (error: Error): void => {
    if (this.#sessionStreamOpen || !this.#sentSinceDoubt || this.#closing.signal.aborted) return;
    this.#sentSinceDoubt = false;
    this.#options.onSessionDoubt?.(error);
  };

  constructor(url: URL, options: StreamableHttpClientTransportOptions = {}) {
    this.#url = url;
    this.#origin = url.origin;
    this.#headers = options.headers ?? {};
    this.#options = options;
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error('the transport has already started'));
    this.#started = true;
    this.#unwatch = watchServerCloses(this.#origin, this.#onServerClose);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#closing.signal.aborted) return Promise.resolve();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#closing.abort(new Error('the transport closed'));
    this.#unwatch?.();
    this.onclose?.();
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      const method = 'method' in message ? message.method : undefined;
      const requestId = method !== undefined && 'id' in message ? message.id : undefined;
      if (method !== 'ping') this.#sentSinceDoubt = true;
      if (options?.resumptionToken !== undefined) {
        const context = { requestId, callId: undefined, replayId: requestId };
        this.#resume(options.resumptionToken, context);
        return;
      }
      const requestSignal = options?.requestSignal;
      const answer = await this.#post(message, options, requestSignal);
      this.#noteSession(answer);
      if (answer.statusCode < 200 || answer.statusCode > 299) {
        const text = await answer.body.text().catch(() => '');
        // A 2026-07-28 server answers some refusals (-32022, -32020) with 400 and the JSON-RPC
        // error: that is the request's answer.
        if (answer.statusCode === 400 && requestId !== undefined && isModernRequest(message)) {
          const parsed = parseErrorAnswer(text, requestId);
          if (parsed !== undefined) {
            this.onmessage?.(parsed);
            return;
          }
        }
        const failure = new SdkHttpError(
          postFailureCode(answer.statusCode),
          `Error POSTing to endpoint (HTTP ${answer.statusCode}): ${redirectNote(answer, this.#url) ?? text}`,
          { status: answer.statusCode, text },
        );
        if (answer.statusCode === 404 && this.#sessionId !== undefined) {
          this.#options.onSessionDoubt?.(failure);
        }
        throw failure;
      }
      if (answer.statusCode === 202 || requestId === undefined) {
        await answer.body.dump();
        if (method === 'notifications/initialized') {
          this.#openSessionStream(undefined, undefined);
        }
        return;
      }
      const type = mediaType(answer.headers['content-type']);
      if (type === 'text/event-stream') {
        const callId = method === 'tools/call' ? requestId : undefined;
        this.#read(answer, {
          requestId,
          callId,
          resumedFrom: undefined,
          replayId: undefined,
          signal: requestSignal,
        });
      } else if (type === 'application/json') {
        this.#deliverJson(await answer.body.text());
      } else {
        await answer.body.dump();
        throw new SdkHttpError(
          SdkErrorCode.ClientHttpUnexpectedContent,
          `Unexpected content type: ${String(type)}`,
          { status: answer.statusCode },
        );
      }
    } catch (error) {
      const failure = asError(error);
      this.onerror?.(failure);
      throw failure;
    }
  }

  /** Ends the session on the server (DELETE); 405 means the server keeps sessions to itself. */
  async terminateSession(): Promise<void> {
    if (this.#sessionId === undefined) return;
    try {
      const answer = await this.#request('DELETE', this.#headersFor('delete'), undefined);
      await answer.body.dump();
      if ((answer.statusCode < 200 || answer.statusCode > 299) && answer.statusCode !== 405) {
        throw new SdkHttpError(
          SdkErrorCode.ClientHttpFailedToTerminateSession,
          `Failed to terminate session (HTTP ${answer.statusCode})${suffix(redirectNote(answer, this.#url))}`,
          { status: answer.statusCode },
        );
      }
      this.#sessionId = undefined;
    } catch (error) {
      const failure = asError(error);
      this.onerror?.(failure);
      throw failure;
    }
  }

  /** POSTs `message`; once more after the OAuth client dealt with a 401 or 403. */
  #post(
    message: JSONRPCMessage,
    options: TransportSendOptions | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const body = JSON.stringify(message);
    return postAuthorized(this.#options.auth, async (authorization) => {
      if (this.#options.auth !== undefined) this.#authorization = authorization;
      const headers = { ...this.#headersFor('post'), ...perRequestHeaders(message, options) };
      return this.#request('POST', headers, body, signal);
    });
  }

  #headersFor(kind: 'post' | 'get' | 'delete', lastEventId?: string): Record<string, string> {
    const headers: Record<string, string> = { ...this.#headers };
    if (this.#authorization !== undefined) headers.authorization = this.#authorization;
    if (kind === 'post') {
      headers['content-type'] = 'application/json';
      headers.accept = 'application/json, text/event-stream';
    } else if (kind === 'get') {
      headers.accept = 'text/event-stream';
    }
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion !== undefined) {
      headers['mcp-protocol-version'] = this.#protocolVersion;
    }
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return headers;
  }

  /**
   * One HTTP request, redirects followed within the origin as fetch follows them (303, and 301
   * or 302 after a POST, turn into a GET without a body); a redirect elsewhere is returned as is.
   */
  async #request(
    method: 'GET' | 'POST' | 'DELETE',
    headers: Record<string, string>,
    body: string | undefined,
    requestSignal?: AbortSignal,
  ): Promise<Answer> {
    // A signal of the request's own even without a caller's: undici keeps its abort listener on
    // the signal it is handed until the answer's body closes, so handing it the connection-long
    // one piled a listener per call in flight on that one signal (Node warns past ten). A
    // dependent signal leaves the connection's without listeners; closing still aborts them all.
    const signal = AbortSignal.any(
      requestSignal === undefined ? [this.#closing.signal] : [this.#closing.signal, requestSignal],
    );
    let url = this.#url;
    for (let redirects = 0; ; redirects++) {
      let answer: Answer;
      try {
        const agent = await httpAgent();
        answer = await agent.request({
          origin: this.#origin,
          path: url.pathname + url.search,
          method,
          headers,
          body,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new Error(`${method} ${url.href} failed: ${asError(error).message}`, {
          cause: error,
        });
      }
      const location = header(answer.headers, 'location');
      if (!isRedirect(answer.statusCode) || location === undefined) return answer;
      const next = new URL(location, url);
      if (next.origin !== this.#origin || redirects === MAX_REDIRECTS) return answer;
      await answer.body.dump();
      const status = answer.statusCode;
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        const { 'content-type': _, ...rest } = headers;
        headers = rest;
      }
      url = next;
    }
  }

  #noteSession(answer: Answer): void {
    const sessionId = header(answer.headers, 'mcp-session-id');
    if (sessionId !== undefined && sessionId !== '') this.#sessionId = sessionId;
  }

  #deliverJson(text: string): void {
    const parsed = JSON.parse(text) as unknown;
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) this.#deliver(message);
  }

  #deliver(message: unknown): void {
    if (isMessage(message)) this.onmessage?.(message);
    else
      this.onerror?.(new Error(`not a JSON-RPC message: ${JSON.stringify(message).slice(0, 200)}`));
  }

  /**
   * Opens the session's GET stream, which carries what the server sends outside any request;
   * `attempt` counts reopenings (undefined for the first opening, which is not retried).
   */
  #openSessionStream(lastEventId: string | undefined, attempt: number | undefined): void {
    this.#stream(lastEventId)
      .then((answer) => {
        if (answer === undefined) return;
        this.#sessionStreamOpen = true;
        this.#read(answer, {
          requestId: undefined,
          callId: undefined,
          resumedFrom: lastEventId,
          replayId: undefined,
        });
      })
      .catch((error: unknown) => {
        if (this.#closing.signal.aborted) return;
        this.onerror?.(new Error(`could not open the SSE stream: ${asError(error).message}`));
        if (attempt === undefined) return;
        // A stream that cannot be reopened may mean the server is gone: let the owner check.
        this.#options.onSessionDoubt?.(error);
        if (attempt + 1 >= RECONNECT.maxRetries) {
          this.onerror?.(
            new Error(`Maximum reconnection attempts (${RECONNECT.maxRetries}) exceeded.`),
          );
          return;
        }
        this.#later(attempt + 1, () => {
          this.#openSessionStream(lastEventId, attempt + 1);
        });
      });
  }

  /** A GET for an event stream; `undefined` when the server has none (405). */
  async #stream(lastEventId: string | undefined): Promise<Answer | undefined> {
    const answer = await this.#request('GET', this.#headersFor('get', lastEventId), undefined);
    if (answer.statusCode >= 200 && answer.statusCode <= 299) return answer;
    await answer.body.dump();
    if (answer.statusCode === 405) return undefined;
    throw new SdkHttpError(
      SdkErrorCode.ClientHttpFailedToOpenStream,
      `Failed to open SSE stream (HTTP ${answer.statusCode})${suffix(redirectNote(answer, this.#url))}`,
      { status: answer.statusCode },
    );
  }

  /** Resumes the stream that was carrying `requestId`'s answer, from the event `lastEventId`. */
  #resume(lastEventId: string, context: Omit<StreamContext, 'resumedFrom'>): void {
    const { requestId } = context;
    this.#stream(lastEventId)
      .then((answer) => {
        if (answer === undefined) {
          throw new SdkHttpError(SdkErrorCode.ClientHttpFailedToOpenStream, 'Method Not Allowed', {
            status: 405,
          });
        }
        this.#read(answer, { ...context, resumedFrom: lastEventId });
      })
      .catch((error: unknown) => {
        if (this.#closing.signal.aborted) return;
        this.#options.onSessionDoubt?.(error);
        this.#lose(
          requestId,
          `the server did not resume the response stream from event "${lastEventId}" (${asError(error).message})`,
        );
      });
  }

  /** Reads an event stream to its end, then decides what its end means (see the class). */
  #read(answer: Answer, context: StreamContext): void {
    const { callId, replayId } = context;
    let lastEventId: string | undefined;
    let answered = false;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id !== undefined) lastEventId = event.id;
        if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch (error) {
          this.onerror?.(asError(error));
          return;
        }
        if (!isMessage(message)) {
          this.#deliver(message);
          return;
        }
        if (!('method' in message)) {
          answered = true;
          if (replayId !== undefined) (message as { id: RequestId }).id = replayId;
        } else if (callId !== undefined && 'id' in message) {
          this.#options.onRelatedRequest?.(callId, message.id);
        }
        this.onmessage?.(message);
      },
      onRetry: (ms) => {
        this.#retryMs = ms;
      },
    });
    const { body } = answer;
    // undici's body ignores setEncoding: a chunk may end inside a character.
    const decoder = new StringDecoder('utf8');
    body.on('data', (chunk: Buffer) => {
      parser.feed(decoder.write(chunk));
    });
    body.once('end', () => {
      parser.feed(decoder.end());
      this.#ended(context, lastEventId, answered, undefined);
    });
    body.once('error', (error) => {
      if (this.#closing.signal.aborted || context.signal?.aborted === true) return;
      this.onerror?.(new Error(`SSE stream disconnected: ${asError(error).message}`));
      this.#options.onSessionDoubt?.(error);
      this.#ended(context, lastEventId, answered, error);
    });
  }

  #ended(
    context: StreamContext,
    lastEventId: string | undefined,
    answered: boolean,
    error: unknown,
  ): void {
    if (this.#closing.signal.aborted) return;
    const { requestId, resumedFrom } = context;
    if (requestId === undefined) {
      this.#sessionStreamOpen = false;
      // The session's GET stream: reopened, from where it stopped if it said. A server that
      // exits ends it cleanly, so its end alone is reason to check (a broken one reported it).
      if (error === undefined) this.#options.onSessionDoubt?.(new Error('the SSE stream ended'));
      this.#later(0, () => {
        this.#openSessionStream(lastEventId ?? resumedFrom, 0);
      });
      return;
    }
    if (answered) return;
    if (lastEventId !== undefined) {
      this.#later(0, () => {
        this.#resume(lastEventId, context);
      });
      return;
    }
    const stream =
      resumedFrom === undefined
        ? 'the response stream'
        : `the response stream resumed from event "${resumedFrom}"`;
    const how = error === undefined ? 'ended' : `broke (${asError(error).message})`;
    this.#lose(requestId, `${stream} ${how} before the answer, with no event ID to resume it from`);
  }

  /** Fails a request whose answer can no longer arrive. */
  #lose(requestId: RequestId | undefined, reason: string): void {
    if (requestId === undefined) return;
    // -32000: what SDK v1 called ConnectionClosed; v2 keeps that code off the wire.
    this.onmessage?.(lostAnswer(requestId, reason));
  }

  /** Runs `then` after the reconnection delay for `attempt` (the server's `retry` if it gave one). */
  #later(attempt: number, then: () => void): void {
    const delay =
      this.#retryMs ?? Math.min(RECONNECT.initialMs * RECONNECT.growth ** attempt, RECONNECT.maxMs);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      then();
    }, delay);
    this.#timers.add(timer);
  }
}
