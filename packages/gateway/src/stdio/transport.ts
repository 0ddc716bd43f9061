import type { Readable, Writable } from 'node:stream';
import {
  ProtocolErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';
import { answerIdOf, NdjsonLineSplitter } from '@toolplane/toolmodel/wire';
import { inexactAnswer, inexactParams } from '../inexact-params.js';
import { cancelledRequest, isJsonRpcMessage } from '../jsonrpc.js';
import { messageJson } from '../listing/wire-text.js';

/** The longest line read as a message (default of {@link StdioTransport}'s `maxLineBytes`). */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * The server side of MCP's stdio transport: one JSON-RPC message (or batch) per line each way. A
 * line that is not JSON, not a JSON-RPC message or longer than `maxLineBytes` is answered with a
 * JSON-RPC error (under the request's ID when it can be told, else `null`) and the transport
 * reads on; the message's params are checked by the handler that serves it, so no line is
 * validated twice.
 */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /**
   * Sees every message read before it is delivered; when it returns a promise, this message and
   * every one after it wait for it (in order), so what it prepares is in place before the
   * message is served. The gateway learns of `subscriptions/listen` streams this way.
   */
  onInbound?: ((message: JSONRPCMessage) => Promise<void> | undefined) | undefined;
  /** Sees every message written. */
  onOutbound?: ((message: JSONRPCMessage) => void) | undefined;
  /**
   * Sees each request read while no message waits for {@link onInbound}; one it returns `true`
   * for is served (and answered) by it, and goes no further.
   */
  onRequest?: ((request: JSONRPCRequest) => boolean) | undefined;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #maxLine: number;
  readonly #lines: NdjsonLineSplitter;
  #closed = false;
  // The requests read and not answered yet, by ID; told when none are left.
  readonly #unanswered = new Set<RequestId>();
  #whenAnswered: (() => void) | undefined;
  /** Set while messages wait for an {@link onInbound} promise. */
  #gate: Promise<void> | undefined;

  constructor(stdin: Readable, stdout: Writable, maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxLine = maxLineBytes;
    // An over-long line is refused as soon as it passes the cap, not when (if ever) it ends.
    this.#lines = new NdjsonLineSplitter({
      maxLineBytes,
      onLine: (line) => {
        this.#read(line);
      },
      onOverflow: () => {
        this.#refuseLength();
      },
    });
  }

  start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.onOutbound?.(message);
    const id = 'method' in message ? undefined : (message as { id?: RequestId }).id;
    if (id !== undefined) this.#settle(id);
    return new Promise((resolve) => {
      if (this.#stdout.write(`${messageJson(message)}\n`)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }

  /** The input has ended: its last line is read, even without a newline after it. */
  readLastLine(): void {
    this.#lines.push('\n');
  }

  /** Resolves once every request read has been answered, or after `ms`, whichever is first. */
  async answered(ms: number): Promise<void> {
    if (this.#unanswered.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#whenAnswered = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.#whenAnswered = undefined;
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    // Nobody else reading: stop reading, so the process can exit.
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.onclose?.();
    return Promise.resolve();
  }

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer | string): void => {
    this.#lines.push(chunk);
  };

  #refuseLength(): void {
    this.#refuse(ProtocolErrorCode.InvalidRequest, `a line is longer than ${this.#maxLine} bytes`);
  }

  #read(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#refuse(
        ProtocolErrorCode.ParseError,
        'a line is not valid JSON; send one JSON-RPC message per line',
      );
      return;
    }
    // A request whose params lost an integer to the parse is refused, never served rounded.
    const inexact = inexactParams(line);
    // A batch (JSON-RPC's, MCP's before 2025-06-18): each message served, or refused under its
    // ID, and answered on a line of its own, so no request in it is left without an answer.
    if (Array.isArray(value) && value.length > 0) {
      for (const element of value) this.#receive(element, inexact);
    } else {
      this.#receive(value, inexact);
    }
  }

  #receive(value: unknown, inexact: ((message: unknown) => string | undefined) | undefined): void {
    if (!isJsonRpcMessage(value)) {
      this.#refuse(
        ProtocolErrorCode.InvalidRequest,
        'a line is not a JSON-RPC message',
        answerIdOf(value),
      );
      return;
    }
    const refusal = inexact?.(value);
    if (refusal !== undefined && 'method' in value) {
      this.#refuse(ProtocolErrorCode.InvalidParams, refusal, answerIdOf(value));
      return;
    }
    // A client's answer that lost an integer reaches the server as an error in its place.
    const message = refusal === undefined ? value : inexactAnswer(value, refusal);
    if (this.#gate !== undefined) {
      this.#chain(() => this.#deliver(message));
      return;
    }
    if ('id' in message && 'method' in message) {
      this.#unanswered.add(message.id);
      if (this.onRequest?.(message) === true) return;
    }
    const waiting = this.#deliver(message);
    if (waiting !== undefined) this.#chain(() => waiting);
    // A cancelled request gets no answer (MCP's cancellation): the close stops waiting for it.
    const cancelled = cancelledRequest(message);
    if (cancelled !== undefined) this.#settle(cancelled);
  }

  /** Counts request `id` as answered; tells the close's wait once none is left. */
  #settle(id: RequestId): void {
    if (this.#unanswered.delete(id) && this.#unanswered.size === 0) this.#whenAnswered?.();
  }

  /** Runs `next` once every message before it is delivered (and what it waits for, too). */
  #chain(next: () => Promise<void> | undefined): void {
    const gate = (this.#gate ?? Promise.resolve()).then(next);
    this.#gate = gate;
    void gate.then(() => {
      if (this.#gate === gate) this.#gate = undefined;
    });
  }

  /** Delivers `message`, or returns the promise its delivery waits for. */
  #deliver(message: JSONRPCMessage): Promise<void> | undefined {
    const waiting = this.onInbound?.(message);
    if (waiting === undefined) {
      this.onmessage?.(message);
      return undefined;
    }
    return waiting
      .catch(() => undefined)
      .then(() => {
        this.onmessage?.(message);
      });
  }

  #refuse(code: number, message: string, id: RequestId | null = null): void {
    this.onerror?.(new Error(message));
    const answer = { jsonrpc: '2.0', id, error: { code, message } };
    void this.send(answer as unknown as JSONRPCMessage);
  }
}
