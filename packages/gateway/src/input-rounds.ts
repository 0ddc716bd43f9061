import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import type { UpstreamRequest } from '@toolplane/toolkit';

/** How long a client has to answer an `input_required` round (default of `inputRoundTtlMs`). */
export const DEFAULT_INPUT_ROUND_TTL_MS = 10 * 60_000;

/** An upstream's request waiting for the 2026 client's answer. */
interface Round {
  readonly key: string;
  readonly request: UpstreamRequest;
  answer(result: unknown): void;
  fail(error: Error): void;
}

/** A 2026-07-28 `tools/call` whose upstream call outlives the requests that carry its rounds. */
interface Flow {
  readonly id: string;
  readonly controller: AbortController;
  /** The call's outcome, once it has one. */
  running?: Promise<CallToolResult>;
  /** The round the client must answer next (set once it has been sent). */
  pending?: Round;
  /** The nonce the next retry's `requestState` must carry: each state serves once. */
  expected?: string;
  /** Wakes the request waiting on the call when the upstream asks for input. */
  wake?: (round: Round) => void;
  queued: Round[];
  timer?: ReturnType<typeof setTimeout>;
}

interface Sealed {
  readonly f: string;
  readonly n: string;
  readonly m: string;
  readonly e: number;
}

const invalidState = (why: string): ProtocolError =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `requestState is ${why}; start the call again without it`,
  );

/**
 * Bridges an upstream's 2025-era server→client requests (elicitation, sampling) during a
 * 2026-07-28 client's `tools/call` into `input_required` rounds: the request answers with the
 * upstream's request embedded and a `requestState` sealed with HMAC-SHA256 (bound to the flow,
 * a one-time nonce, the method and an expiry); the client's retry carries the answer, which goes
 * upstream, and waits for the result or the next round. A forged, replayed or expired state is
 * -32602. A flow whose client does not come back within `ttlMs` is cancelled upstream.
 */
export class InputRounds {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #flows = new Map<string, Flow>();

  constructor(options: { key?: string | Uint8Array; ttlMs?: number } = {}) {
    this.#key =
      options.key === undefined
        ? randomBytes(32)
        : Buffer.from(typeof options.key === 'string' ? Buffer.from(options.key) : options.key);
    this.#ttlMs = options.ttlMs ?? DEFAULT_INPUT_ROUND_TTL_MS;
  }

  /** How many flows wait for a client's answer. */
  get size(): number {
    return this.#flows.size;
  }

  /**
   * Starts a flow: `run` gets the signal the upstream call goes with and the function that asks
   * the client for input; the answer is the call's result or its first round.
   */
  async start(
    run: (
      signal: AbortSignal,
      requestInput: (request: UpstreamRequest) => Promise<unknown>,
    ) => Promise<CallToolResult>,
    requestSignal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult> {
    const flow: Flow = { id: randomUUID(), controller: new AbortController(), queued: [] };
    const requestInput = (request: UpstreamRequest): Promise<unknown> =>
      new Promise((answer, fail) => {
        const round: Round = { key: randomUUID().slice(0, 8), request, answer, fail };
        if (flow.wake === undefined) flow.queued.push(round);
        else flow.wake(round);
      });
    flow.running = run(flow.controller.signal, requestInput);
    this.#flows.set(flow.id, flow);
    return this.#settle(flow, requestSignal);
  }

  /**
   * Resumes the flow a retried request's `requestState` names with the client's `responses`.
   *
   * @throws {ProtocolError} -32602 when the state is forged, replayed, expired or for another method.
   */
  async resume(
    state: string,
    method: string,
    responses: Readonly<Record<string, unknown>> | undefined,
    requestSignal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult> {
    const sealed = this.#open(state);
    if (sealed.m !== method) throw invalidState(`for ${sealed.m}, not ${method}`);
    if (sealed.e < Date.now()) throw invalidState('expired');
    const flow = this.#flows.get(sealed.f);
    if (flow?.expected !== sealed.n || flow.pending === undefined) {
      throw invalidState('already used or unknown');
    }
    flow.expected = undefined;
    clearTimeout(flow.timer);
    const round = flow.pending;
    flow.pending = undefined;
    const answer = responses?.[round.key];
    if (answer === undefined) {
      round.fail(new Error(`the client did not answer ${round.request.method}`));
    } else {
      round.answer(answer);
    }
    return this.#settle(flow, requestSignal);
  }

  /** Cancels every flow (the gateway is closing). */
  dispose(): void {
    for (const flow of this.#flows.values()) this.#end(flow, 'the gateway closed');
  }

  async #settle(
    flow: Flow,
    requestSignal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult> {
    // A client that cancels the request it waits on cancels the call.
    const cancel = (): void => {
      this.#end(flow, 'the client cancelled the call');
    };
    requestSignal.addEventListener('abort', cancel, { once: true });
    try {
      const queued = flow.queued.shift();
      const next: { round: Round } | { result: CallToolResult } =
        queued === undefined
          ? await Promise.race([
              (flow.running ?? Promise.reject(new Error('no call'))).then((result) => ({ result })),
              new Promise<{ round: Round }>((resolve) => {
                flow.wake = (round) => {
                  resolve({ round });
                };
              }),
            ])
          : { round: queued };
      flow.wake = undefined;
      if ('result' in next) {
        this.#flows.delete(flow.id);
        return next.result;
      }
      flow.pending = next.round;
      flow.expected = randomUUID();
      flow.timer = setTimeout(() => {
        this.#end(flow, 'the client did not answer in time');
      }, this.#ttlMs);
      flow.timer.unref();
      return {
        resultType: 'input_required',
        inputRequests: { [next.round.key]: next.round.request as InputRequest },
        requestState: this.#seal({
          f: flow.id,
          n: flow.expected,
          m: 'tools/call',
          e: Date.now() + this.#ttlMs,
        }),
      };
    } finally {
      requestSignal.removeEventListener('abort', cancel);
    }
  }

  #end(flow: Flow, why: string): void {
    if (!this.#flows.delete(flow.id)) return;
    clearTimeout(flow.timer);
    flow.pending?.fail(new Error(why));
    for (const round of flow.queued) round.fail(new Error(why));
    flow.controller.abort(new Error(why));
  }

  #seal(payload: Sealed): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  #open(state: string): Sealed {
    const [body, mac, ...rest] = state.split('.');
    if (body === undefined || mac === undefined || rest.length > 0) throw invalidState('malformed');
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidState('not one this gateway sealed');
    }
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Sealed;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
