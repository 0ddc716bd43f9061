import { ProtocolError, ProtocolErrorCode, type Transport } from '@modelcontextprotocol/client';
import { CALLER_META_KEY, type UpstreamRequestHandler } from './connector-types.js';

/**
 * Names one call of a 2026-07-28 connection across its requests (the first, and each retry of an
 * `input_required` round), so the call is dropped when it ends however it ends; taken out of
 * `_meta` as it is sent, as the caller is.
 */
export const CALL_META_KEY = 'io.toolplane/call';

/**
 * The tool calls in flight on one connection, by JSON-RPC ID, with their callers: the caller is
 * read from (and taken out of) each call's `_meta` as it is sent, so the server never sees it.
 *
 * A call leaves when it is answered, when a `notifications/cancelled` for it is sent (2025), or
 * when {@link end} is told its {@link CALL_META_KEY} (a 2026-07-28 call, which is cancelled by
 * closing its request stream, or simply not retried once its caller gave up during an input
 * round: nothing goes over the wire).
 */
export class CallTracker {
  readonly #callers = new Map<string | number, string>();
  // A 2026-07-28 call's key → the IDs of its requests; and back.
  readonly #keyed = new Map<string, (string | number)[]>();
  readonly #keyOf = new Map<string | number, string>();
  #nextKey = 0;
  // A server request's ID → the ID of the call on whose response stream it arrived.
  readonly #related = new Map<string | number, string | number>();
  // 2026-07-28: a call answered `input_required` stays in flight until the SDK retries it with
  // the round's `requestState` (a new request, a new ID): requestState → the first call's ID.
  readonly #rounds = new Map<string, string | number>();
  /** The caller of the latest call sent, or of the latest roots change; see {@link rootsCaller}. */
  lastCaller: string | undefined;
  /**
   * Told when a call is sent for another caller than {@link lastCaller}: the roots the server
   * holds are the previous caller's, and it should ask again.
   */
  onCallerChange: (() => void) | undefined;
  // Who waits for the last call in flight to end (a connector being drained).
  readonly #idleWaiters = new Set<() => void>();

  install(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as { method?: string; id?: string | number; params?: unknown };
      const params = m.params as { _meta?: Record<string, unknown> } | undefined;
      const caller = params?._meta?.[CALLER_META_KEY];
      if (m.method === 'notifications/cancelled') {
        const cancelled = (params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof cancelled === 'string' || typeof cancelled === 'number') this.#drop(cancelled);
        return send(message, options);
      }
      const key = params?._meta?.[CALL_META_KEY];
      if (m.method === 'tools/call' && m.id !== undefined && typeof caller === 'string') {
        const state = (params as { requestState?: unknown } | undefined)?.requestState;
        if (typeof state === 'string') this.#endRound(state);
        this.#callers.set(m.id, caller);
        if (typeof key === 'string' && this.#keyed.has(key)) {
          this.#keyed.get(key)?.push(m.id);
          this.#keyOf.set(m.id, key);
        }
        const changed = this.lastCaller !== caller;
        this.lastCaller = caller;
        if (changed) this.onCallerChange?.();
        const { [CALLER_META_KEY]: _, [CALL_META_KEY]: __, ...meta } = params?._meta ?? {};
        const rest = { ...params, _meta: meta };
        if (Object.keys(meta).length === 0) delete (rest as { _meta?: unknown })._meta;
        return this.#sendCall(send, { ...message, params: rest }, options, m.id);
      }
      return send(message, options);
    };
    const receive = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: unknown; id?: string | number; result?: unknown };
      if (m.method === undefined && m.id !== undefined && this.#startRound(m.id, m.result)) {
        // An input round of a call in flight: its requests belong to the call's caller.
      } else if (m.method === undefined && m.id !== undefined && this.#callers.has(m.id)) {
        this.#drop(m.id);
      }
      receive?.call(transport, message, extra);
    };
  }

  /**
   * Sends a call just counted in flight. A call that never reaches the server (the transport
   * refuses it: arguments it cannot serialise, a closed connection) gets no answer and no
   * `notifications/cancelled`, so it leaves here, or its caller would be counted for good.
   */
  async #sendCall(
    send: Transport['send'],
    message: Parameters<Transport['send']>[0],
    options: Parameters<Transport['send']>[1],
    id: string | number,
  ): Promise<void> {
    try {
      await send(message, options);
    } catch (error) {
      this.#drop(id);
      throw error;
    }
  }

  /** How many calls are in flight (in an input round included). */
  get inFlight(): number {
    return this.#callers.size;
  }

  /**
   * Resolves once no call is in flight (at once when none is), or when `signal` aborts: a
   * connector being replaced lets the calls it started finish before it closes.
   */
  idle(signal?: AbortSignal): Promise<void> {
    if (this.#callers.size === 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#idleWaiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#idleWaiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** A new key for a 2026-07-28 call, to send in its `_meta` under {@link CALL_META_KEY}. */
  key(): string {
    const key = `c${String(++this.#nextKey)}`;
    this.#keyed.set(key, []);
    return key;
  }

  /** The call `key` names has ended (answered, failed or given up): every request of it goes. */
  end(key: string): void {
    const ids = this.#keyed.get(key);
    this.#keyed.delete(key);
    for (const id of ids ?? []) this.#drop(id);
  }

  /** Forgets one request of a call, and everything tied to it. */
  #drop(callId: string | number): void {
    this.#callers.delete(callId);
    if (this.#callers.size === 0) for (const done of [...this.#idleWaiters]) done();
    const key = this.#keyOf.get(callId);
    if (key !== undefined) {
      this.#keyOf.delete(callId);
      const ids = this.#keyed.get(key);
      if (ids !== undefined) {
        const at = ids.indexOf(callId);
        if (at >= 0) ids.splice(at, 1);
      }
    }
    for (const [request, call] of this.#related) {
      if (call === callId) this.#related.delete(request);
    }
    for (const [state, call] of this.#rounds) {
      if (call === callId) this.#rounds.delete(state);
    }
  }

  #startRound(callId: string | number, result: unknown): boolean {
    if (!this.#callers.has(callId)) return false;
    const round = result as
      { resultType?: unknown; requestState?: unknown; inputRequests?: unknown } | undefined;
    if (round?.resultType !== 'input_required') return false;
    if (typeof round.requestState === 'string') this.#rounds.set(round.requestState, callId);
    // The SDK answers each input request through the client's own handlers, under its key.
    const requests = round.inputRequests;
    if (typeof requests === 'object' && requests !== null) {
      for (const key of Object.keys(requests)) this.#related.set(key, callId);
    }
    return true;
  }

  #endRound(state: string): void {
    const callId = this.#rounds.get(state);
    if (callId === undefined) return;
    this.#rounds.delete(state);
    this.#drop(callId);
  }

  relate(callId: string | number, requestId: string | number): void {
    if (this.#callers.has(callId)) this.#related.set(requestId, callId);
  }

  /**
   * Whose roots a `roots/list` asks for: the caller of the call it is tied to or of the only one in
   * flight, else the latest caller on the connection (servers also ask outside calls: after
   * `initialized`, and after a roots change).
   */
  rootsCaller(requestId: string | number): string | undefined {
    const call = this.#related.get(requestId);
    const tied = call === undefined ? undefined : this.#callers.get(call);
    if (tied !== undefined) return tied;
    const callers = new Set(this.#callers.values());
    const [only] = callers;
    return callers.size === 1 ? only : this.lastCaller;
  }

  /**
   * The caller a server request belongs to. When calls of several callers are in flight and
   * nothing ties the request to one, `release` is asked about each caller first: a caller whose
   * call was let go (see `UpstreamRequestHandler.release`) counts no more.
   *
   * @throws {ProtocolError} when no call is in flight, or calls of several callers are and nothing
   * ties the request to one of them.
   */
  callerOf(
    requestId: string | number,
    method: string,
    release?: (caller: string) => 'released' | 'parked' | undefined,
  ): string {
    const call = this.#related.get(requestId);
    const tied = call === undefined ? undefined : this.#callers.get(call);
    if (tied !== undefined) return tied;
    let callers = new Set(this.#callers.values());
    let parked = 0;
    if (callers.size > 1 && release !== undefined) {
      for (const caller of callers) {
        const verdict = release(caller);
        if (verdict === 'released') this.#dropCaller(caller);
        else if (verdict === 'parked') parked++;
      }
      callers = new Set(this.#callers.values());
    }
    const [only] = callers;
    if (callers.size === 1 && only !== undefined) return only;
    const waiting =
      parked === 0
        ? ''
        : `, ${String(parked)} of them parked until a client answers its input_required round or the round lapses`;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      callers.size === 0
        ? `${method} arrived while no tool call of this client was in flight; send it during the call it belongs to`
        : `${method} cannot be tied to one of ${callers.size} callers with calls in flight${waiting}; send it on the call's own response stream (Streamable HTTP with relatedRequestId)`,
    );
  }

  /** Forgets every call of `caller`: it was let go, and its cancellation follows. */
  #dropCaller(caller: string): void {
    for (const [id, of] of [...this.#callers]) if (of === caller) this.#drop(id);
  }
}

/** What a handler has servers told (sampling, elicitation, roots), as a short key to compare. */
export function capabilityKey(handler: UpstreamRequestHandler | undefined): string {
  const { sampling, elicitation, roots } = handler?.capabilities ?? {};
  return `${sampling === true ? 's' : ''}${elicitation === true ? 'e' : ''}${roots === true ? 'r' : ''}`;
}
