import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  ProtocolErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { answerIdOf, CONNECTION_CLOSED } from '@toolplane/toolmodel/wire';
import { cancelledRequest, isJsonRpcMessage, withErrorMeta } from '../jsonrpc.js';
import { EarlyCancels } from './early-cancels.js';
import { inexactAnswer } from '../inexact-params.js';
import { messageJson } from '../listing/wire-text.js';

/** The most messages one POST may carry. */
export const MAX_BATCH_SIZE = 100;

/**
 * The most messages not tied to a request kept for a session's next GET stream while none is
 * open; past it the oldest go, so a client that never opens one costs a bounded amount.
 */
export const MAX_UNSENT = 100;

/**
 * How long a POST's answer waits by default for its responses before its headers go out (as the
 * head of an SSE stream). Held longer, a client sees no status line at all while a slow call
 * runs, and may give up; sent at once, every fast call would pay a write more than its one JSON
 * body.
 */
export const STREAM_AFTER_MS = 100;

const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** A JSON-RPC response (result or error), as opposed to a request or a notification. */
function isResponse(
  message: JSONRPCMessage,
): message is Extract<JSONRPCMessage, { id: RequestId }> &
  ({ result: unknown } | { error: unknown }) {
  return 'result' in message || 'error' in message;
}

function isRequest(
  message: JSONRPCMessage,
): message is Extract<JSONRPCMessage, { method: string; id: RequestId }> {
  return 'method' in message && 'id' in message;
}

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${messageJson(message)}\n\n`;
}

/**
 * The answer to one POST. While only responses are sent, they are held until the last one and
 * written as one `application/json` body (headers and body in one write); the first request or
 * notification sent before that, or `streamAfterMs` without the last response, turns
 * the answer into an SSE stream, which ends with the last response.
 */
class PostAnswer {
  readonly #res: ServerResponse;
  readonly #pending: Set<RequestId>;
  readonly #batch: boolean;
  readonly #headers: OutgoingHttpHeaders;
  #held: JSONRPCMessage[] = [];
  #streaming = false;
  readonly #headersDue: NodeJS.Timeout;
  readonly #errorMeta: Readonly<Record<string, unknown>> | undefined;

  /** @param refusals - Answers already due (to a batch's invalid messages), sent with the rest. */
  constructor(
    res: ServerResponse,
    ids: readonly RequestId[],
    batch: boolean,
    headers: OutgoingHttpHeaders,
    refusals: readonly JSONRPCMessage[],
    errorMeta: Readonly<Record<string, unknown>> | undefined,
    streamAfterMs: number,
  ) {
    this.#res = res;
    this.#errorMeta = errorMeta;
    this.#pending = new Set(ids);
    this.#batch = batch;
    this.#headers = headers;
    this.#held = refusals.map((refusal) => this.#tagged(refusal));
    this.#headersDue = setTimeout(() => {
      if (this.closed || this.#streaming) return;
      this.#startStream();
      // With nothing held to write, the headers go out on their own.
      this.#res.flushHeaders();
    }, streamAfterMs);
    // Left to fire when the client goes first: it finds the answer closed.
    this.#headersDue.unref();
  }

  /** The request IDs still waiting for their response. */
  get pending(): ReadonlySet<RequestId> {
    return this.#pending;
  }

  get closed(): boolean {
    return this.#res.writableEnded || this.#res.destroyed;
  }

  #tagged(message: JSONRPCMessage): JSONRPCMessage {
    return this.#errorMeta === undefined || !('error' in message)
      ? message
      : withErrorMeta(message, this.#errorMeta);
  }

  deliver(sent: JSONRPCMessage): void {
    if (this.closed) return;
    const message = this.#tagged(sent);
    if (isResponse(message)) this.#pending.delete(message.id);
    if (!this.#streaming) {
      if (isResponse(message)) {
        this.#held.push(message);
        if (this.#pending.size === 0) this.#writeJson();
        return;
      }
      this.#startStream();
    }
    if (this.#pending.size === 0) this.#res.end(sseEvent(message));
    else this.#res.write(sseEvent(message));
  }

  /**
   * Stops waiting for `id`, whose request the client cancelled (no response follows one): when
   * nothing else is pending, the answer ends now, as an empty stream if nothing was written.
   */
  cancel(id: RequestId): void {
    if (this.closed || !this.#pending.delete(id) || this.#pending.size > 0) return;
    if (this.#streaming) {
      this.#res.end();
    } else if (this.#held.length > 0) {
      this.#writeJson();
    } else {
      this.#startStream();
      this.#res.end();
    }
  }

  /** Writes what is held when no request is pending (a batch of refusals only). */
  settle(): void {
    if (!this.closed && !this.#streaming && this.#pending.size === 0) this.#writeJson();
  }

  /** Answers every request still pending with a JSON-RPC error. */
  fail(message: string): void {
    for (const id of [...this.#pending]) {
      this.deliver({ jsonrpc: '2.0', id, error: { code: CONNECTION_CLOSED, message } });
    }
  }

  #writeJson(): void {
    clearTimeout(this.#headersDue);
    const body = this.#batch
      ? JSON.stringify(this.#held)
      : messageJson(this.#held[0] as JSONRPCMessage);
    this.#res.writeHead(200, {
      ...this.#headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    this.#res.end(body);
  }

  #startStream(): void {
    clearTimeout(this.#headersDue);
    this.#streaming = true;
    this.#res.writeHead(200, { ...this.#headers, ...SSE_HEADERS });
    for (const held of this.#held) this.#res.write(sseEvent(held));
    this.#held = [];
  }
}

/**
 * The server side of MCP's Streamable HTTP transport for one session, on node:http: the caller
 * routes a session's POST and GET requests (already authorised and parsed) here. Answers are
 * plain JSON when a POST's responses are all there is to send, SSE when notifications or
 * server→client requests go with them; messages not tied to a request go to the session's GET
 * stream, or wait for the next one while none is open (at most {@link MAX_UNSENT}). No
 * resumption: a dropped stream's messages are lost, as without an event store in the SDK's
 * transport.
 */
export class HttpServerTransport implements Transport {
  readonly sessionId: string | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined;

  /** The answer each request in flight goes to (a closed one when the client has gone). */
  readonly #answers = new Map<RequestId, PostAnswer>();
  /** Cancellations that came before their requests (see {@link EarlyCancels}). */
  readonly #earlyCancels = new EarlyCancels();
  #standalone: ServerResponse | undefined;
  // Sent while no GET stream was open: a client opens its stream only after `initialized`, by
  // when the gateway may already be asking it something (an upstream's roots/list, which
  // would otherwise never be answered). The next stream gets them first.
  #unsent: JSONRPCMessage[] = [];
  #initialized = false;
  #closed = false;

  readonly #errorMeta: Readonly<Record<string, unknown>> | undefined;
  readonly #streamAfterMs: number;

  /**
   * @param sessionId - The session's ID, sent with every answer; none in stateless mode.
   * @param options - `errorMeta`: merged into the `data._meta` of every JSON-RPC error it sends;
   * `streamAfterMs`: how long a POST's answer waits for its responses before it becomes an SSE
   * stream (default {@link STREAM_AFTER_MS}).
   */
  constructor(
    sessionId?: string,
    options: { errorMeta?: Readonly<Record<string, unknown>>; streamAfterMs?: number } = {},
  ) {
    this.sessionId = sessionId;
    this.#errorMeta = options.errorMeta;
    this.#streamAfterMs = options.streamAfterMs ?? STREAM_AFTER_MS;
  }

  /** Whether an initialize request has been received. */
  get initialized(): boolean {
    return this.#initialized;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Serves one POST's messages: 202 at once when it carries no request, else the answer stays
   * open until every request in it has its response. A batch's elements that are not JSON-RPC
   * messages are each refused (-32600, under their ID when it can be told, else `null`) in the
   * batch's answer, as JSON-RPC says, and the rest served.
   */
  handlePost(
    res: ServerResponse,
    post: {
      readonly messages: readonly unknown[];
      readonly batch: boolean;
      /** Why a request among them is refused (-32602) for an integer its params lost. */
      readonly inexact?: ((message: unknown) => string | undefined) | undefined;
    },
    extra?: MessageExtraInfo,
  ): void {
    const { messages: posted, batch, inexact } = post;
    if (this.#closed) {
      writeError(res, 404, CONNECTION_CLOSED, 'the session has ended', null, this.#errorMeta);
      return;
    }
    const inexactOnes = new Map<unknown, string>();
    for (const value of inexact === undefined ? [] : posted) {
      const refusal = isJsonRpcMessage(value) ? inexact?.(value) : undefined;
      if (refusal !== undefined) inexactOnes.set(value, refusal);
    }
    // A refused request is answered below; a refused answer reaches the server as an error in
    // its place (see inexactParams).
    const messages =
      inexactOnes.size === 0
        ? posted.filter(isJsonRpcMessage)
        : posted.flatMap((value): JSONRPCMessage[] => {
            if (!isJsonRpcMessage(value)) return [];
            const refusal = inexactOnes.get(value);
            if (refusal === undefined) return [value];
            return 'method' in value ? [] : [inexactAnswer(value, refusal)];
          });
    const refusals = posted
      .filter((value) => !isJsonRpcMessage(value))
      .map((value): JSONRPCMessage => ({
        jsonrpc: '2.0',
        // JSON-RPC's `id: null` for an ID that cannot be told; the SDK's type has no room for it.
        id: answerIdOf(value) as RequestId,
        error: { code: ProtocolErrorCode.InvalidRequest, message: 'not a JSON-RPC 2.0 message' },
      }))
      .concat(
        [...inexactOnes]
          .filter(([value]) => isJsonRpcMessage(value) && 'method' in value)
          .map(([value, message]): JSONRPCMessage => ({
            jsonrpc: '2.0',
            id: answerIdOf(value) as RequestId,
            error: { code: ProtocolErrorCode.InvalidParams, message },
          })),
      );
    if (messages.some((m) => 'method' in m && m.method === 'initialize')) this.#initialized = true;
    const ids = messages.filter(isRequest).map((m) => m.id);
    // An ID still in flight in this session names another request: serving this one too would
    // leave one of the two unanswered, so it is refused at once. In flight means until its
    // response is sent or it is cancelled, even when the client has closed the POST it came in.
    const reused = new Set(ids.filter((id) => this.#answers.has(id)));
    if (ids.length === 0 && refusals.length === 0) {
      res.writeHead(202).end();
    } else {
      const answer = new PostAnswer(
        res,
        ids,
        batch,
        this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId },
        refusals,
        this.#errorMeta,
        this.#streamAfterMs,
      );
      for (const id of ids) if (!reused.has(id)) this.#answers.set(id, answer);
      for (const id of reused) {
        answer.deliver({
          jsonrpc: '2.0',
          id,
          error: {
            code: ProtocolErrorCode.InvalidRequest,
            message: `request ID ${JSON.stringify(id)} is already in use by a request in flight in this session`,
          },
        });
      }
      answer.settle();
    }
    for (const message of messages) {
      if (isRequest(message) && reused.has(message.id)) continue;
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined && !this.#answers.has(cancelled)) {
        // Its request is not here yet (the two POSTs crossed): handed on when it comes.
        this.#earlyCancels.note(cancelled, message);
        continue;
      }
      this.onmessage?.(message, extra);
      if (cancelled !== undefined) this.#cancel(cancelled);
      const early = isRequest(message) ? this.#earlyCancels.take(message.id) : undefined;
      if (early !== undefined) {
        this.onmessage?.(early, extra);
        this.#cancel((message as { id: RequestId }).id);
      }
    }
  }

  /** Ends the wait for a request the client cancelled (see {@link PostAnswer.cancel}). */
  #cancel(id: RequestId): void {
    const answer = this.#answers.get(id);
    if (answer === undefined) return;
    this.#answers.delete(id);
    answer.cancel(id);
  }

  /** Opens the session's stream for messages not tied to a request (409 when one is open). */
  handleGet(res: ServerResponse): void {
    if (this.#closed) {
      writeError(res, 404, CONNECTION_CLOSED, 'the session has ended', null, this.#errorMeta);
      return;
    }
    if (this.#standalone !== undefined) {
      writeError(
        res,
        409,
        CONNECTION_CLOSED,
        'this session already has a GET stream open',
        null,
        this.#errorMeta,
      );
      return;
    }
    this.#standalone = res;
    res.writeHead(200, {
      ...SSE_HEADERS,
      ...(this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId }),
    });
    res.flushHeaders();
    for (const message of this.#unsent.splice(0)) res.write(sseEvent(message));
    res.once('close', () => {
      if (this.#standalone === res) this.#standalone = undefined;
    });
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (isResponse(message)) {
      const answer = this.#answers.get(message.id);
      this.#answers.delete(message.id);
      // No answer: the client has gone; its response has nowhere to go.
      answer?.deliver(message);
      return Promise.resolve();
    }
    const related = options?.relatedRequestId;
    const answer = related === undefined ? undefined : this.#answers.get(related);
    if (answer !== undefined && !answer.closed) {
      answer.deliver(message);
    } else if (this.#standalone !== undefined && !this.#standalone.writableEnded) {
      this.#standalone.write(sseEvent(message));
    } else if (this.sessionId !== undefined) {
      // Stateless mode has no GET stream to wait for.
      this.#unsent.push(message);
      if (this.#unsent.length > MAX_UNSENT) this.#unsent.shift();
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const answers = new Set(this.#answers.values());
    this.#answers.clear();
    for (const answer of answers) answer.fail('the session was closed');
    this.#standalone?.end();
    this.#standalone = undefined;
    this.#unsent = [];
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Writes a JSON-RPC error (with no ID unless given) as a whole HTTP answer. */
export function writeError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: RequestId | null = null,
  meta?: Readonly<Record<string, unknown>>,
): void {
  const error = meta === undefined ? { code, message } : { code, message, data: { _meta: meta } };
  const body = JSON.stringify({ jsonrpc: '2.0', error, id });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
