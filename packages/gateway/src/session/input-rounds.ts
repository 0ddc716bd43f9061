import { randomUUID } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CallHandedOn, ToolError, type UpstreamRequest } from '@toolplane/toolkit';
import {
  invalidState,
  paramsDigest,
  replayOf,
  SpentStates,
  StateSeal,
  type Answered,
  type RoundState,
  type SpendRequestState,
} from './request-state.js';
import type {
  CallIdentity,
  InputRequestOptions,
  ParkedCall,
  RequestInput,
  ResumeOptions,
  RunCall,
} from './round-calls.js';

/** How long a client has to answer an `input_required` round (default of `inputRoundTtlMs`). */
export const DEFAULT_INPUT_ROUND_TTL_MS = 10 * 60_000;

/** An upstream's request waiting for the 2026 client's answer. */
interface Round {
  readonly key: string;
  readonly request: UpstreamRequest;
  /** Asked before the call's dispatch (see {@link InputRequestOptions.beforeDispatch}). */
  readonly beforeDispatch: boolean;
  readonly answerBy: number | undefined;
  /** Set once the round is sent with a replay: the client's retry can run the call anywhere. */
  replayable?: boolean;
  answer(result: unknown): void;
  fail(error: Error): void;
}

/** A 2026-07-28 `tools/call` whose upstream call outlives the requests that carry its rounds. */
interface Flow {
  readonly id: string;
  readonly call: CallIdentity;
  /** Cancels the upstream call (the flow's own controller, or the lazily started call's). */
  readonly abort: (why: Error) => void;
  /** The rounds answered so far, in order: a replay elsewhere answers them again. */
  readonly history: Answered[];
  /** Whether the call may have reached its backend (it asked something past its approval). */
  dispatched: boolean;
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

/**
 * Bridges an upstream's 2025-era server→client requests (elicitation, sampling) during a
 * 2026-07-28 client's `tools/call` into `input_required` rounds: the request answers with the
 * upstream's request embedded and a `requestState` sealed with HMAC-SHA256 (bound to the caller,
 * the flow, a one-time nonce, the method and an expiry); the client's retry carries the answer,
 * which goes upstream, and waits for the result or the next round. A forged, replayed or expired
 * state is -32602. A flow whose client does not come back within `ttlMs` is cancelled upstream.
 *
 * A retry that reaches an instance not holding the flow (behind a round-robin balancer) replays
 * the call there when the state carries a replay (the tool is read-only or idempotent, and the
 * arguments and answers fit {@link MAX_REPLAY_STATE_BYTES}): the upstream's repeated requests are
 * answered from the answers given so far, matched in order by method and params digest, and
 * anything else is a new round. Otherwise the retry gets -32602 naming the reason and the
 * instance holding the call. A round the gateway asks before the call reaches its backend (its
 * approval question) carries a replay whatever the tool: the retry runs the call from the start
 * wherever it lands, answering that question from the state, so the backend is called once,
 * after the answer. The call held here never runs on that answer: it is ended at once when
 * `release` is set (a fleet's default), else when a retry brings the state back here after
 * another instance used it (a state serves once) or, with the fleet's `key`, when the approval's
 * own timeout passes, whichever comes first; each time as handed on (`CallHandedOn`, counted
 * `input_required`), not refused. Nothing tells this instance sooner that another one spent the
 * state: the shared record (`spend`) is a test-and-set, with no read and no notification, and
 * asking it would spend the state.
 */
export class InputRounds {
  readonly #seal: StateSeal;
  readonly #ttlMs: number;
  readonly #instanceId: string | undefined;
  readonly #spent = new SpentStates();
  readonly #spendShared: SpendRequestState | undefined;
  readonly #flows = new Map<string, Flow>();
  readonly #release: boolean;
  /** Whether the key is the fleet's (given), so that a retry may run the call on any instance. */
  readonly #shared: boolean;

  /** @throws {ToolError} `invalid_config` for a key shorter than 32 bytes. */
  constructor(
    options: {
      key?: string | Uint8Array | undefined;
      ttlMs?: number | undefined;
      instanceId?: string | undefined;
      /** The caller a state is bound to (default: any caller). */
      bind?: ((ctx: ServerContext) => string) | undefined;
      spend?: SpendRequestState | undefined;
      /**
       * Cancel a call upstream once it has asked, when its state carries a replay: every retry
       * replays it, so nothing waits in any instance for a retry that went elsewhere.
       */
      release?: boolean | undefined;
    } = {},
  ) {
    this.#ttlMs = options.ttlMs ?? DEFAULT_INPUT_ROUND_TTL_MS;
    this.#seal = new StateSeal({
      key: options.key,
      ttlMs: this.#ttlMs,
      bind: options.bind ?? (() => ''),
    });
    this.#instanceId = options.instanceId;
    this.#spendShared = options.spend;
    this.#release = options.release ?? false;
    this.#shared = options.key !== undefined;
  }

  /** How many flows wait for a client's answer. */
  get size(): number {
    return this.#flows.size;
  }

  /**
   * Starts a flow: `run` gets the signal the upstream call goes with and the function that asks
   * the client for input; the answer is the call's result or its first round.
   */
  start(
    run: RunCall,
    call: CallIdentity,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    return this.#begin(run, call, ctx, []);
  }

  /**
   * Runs a call that becomes a flow only when its upstream first asks for input: until then it
   * costs what a call with no rounds costs (no controller, no flow ID, no race of promises).
   * `run` gets the request's own signal; `abortCall` is how the flow, once there is one, cancels
   * the upstream call (its client gone, its round expired, the gateway closing). The answer is
   * the call's result or its first round, as {@link InputRounds.start}'s.
   */
  startLazily(
    run: RunCall,
    call: CallIdentity,
    ctx: ServerContext,
    abortCall: (why: Error) => void,
  ): Promise<CallToolResult | InputRequiredResult> {
    let flow: Flow | undefined;
    // Known once `run` returns; an upstream may ask before it does.
    let running: Promise<CallToolResult> | undefined = undefined;
    let promote: ((answer: Promise<CallToolResult | InputRequiredResult>) => void) | undefined;
    const ask = (request: UpstreamRequest, options?: InputRequestOptions): Promise<unknown> => {
      if (flow === undefined) {
        flow = {
          id: randomUUID(),
          call,
          abort: abortCall,
          history: [],
          dispatched: false,
          queued: [],
        };
        if (running !== undefined) flow.running = running;
        this.#flows.set(flow.id, flow);
        const asked = this.#ask(flow, request, options);
        // The request that started the call now answers with the flow's first round.
        promote?.(this.#settle(flow, ctx));
        return asked;
      }
      return this.#ask(flow, request, options);
    };
    const requestInput: RequestInput = Object.assign(ask, {
      release: () => (flow === undefined ? undefined : this.#letGo(flow)),
    });
    running = run(ctx.mcpReq.signal, requestInput);
    return new Promise((resolve) => {
      const asked = flow;
      if (asked === undefined) promote = resolve;
      else {
        // The upstream asked before `run` returned.
        asked.running = running;
        resolve(this.#settle(asked, ctx));
      }
      // A flow reads the call's outcome itself (and a flow that ended, nobody): caught here.
      running.then(
        (result) => {
          if (flow === undefined) resolve(result);
        },
        () => {
          // Settles as the call did: rejected, with its error.
          if (flow === undefined) resolve(running);
        },
      );
    });
  }

  /** A new round of `flow`: the upstream's `request`, answered by the client's retry. */
  #ask(flow: Flow, request: UpstreamRequest, options?: InputRequestOptions): Promise<unknown> {
    const beforeDispatch = options?.beforeDispatch === true && !flow.dispatched;
    if (!beforeDispatch) flow.dispatched = true;
    return new Promise((answer, fail) => {
      const round: Round = {
        key: randomUUID().slice(0, 8),
        request,
        beforeDispatch,
        answerBy: options?.answerBy,
        answer,
        fail,
      };
      // The asker gave up waiting (its timeout, not a cancellation): in a fleet nothing here
      // gets the answer any more, which goes to the retry that runs the call again, wherever it
      // lands. (With a key of its own, a late retry can only come here, and is refused.)
      if (this.#shared) {
        options?.signal?.addEventListener(
          'abort',
          () => {
            const lapsed = ToolError.isInstance(options.signal?.reason)
              ? options.signal.reason.code === 'timeout'
              : false;
            if (lapsed && flow.pending === round && round.replayable === true) {
              this.#end(flow, 'its question lapsed; a retry runs the call again', CallHandedOn);
            }
          },
          { once: true },
        );
      }
      if (flow.wake === undefined) flow.queued.push(round);
      else flow.wake(round);
    });
  }

  /**
   * Resumes the flow a retried request's `requestState` names with the client's `responses`, or
   * replays its call here when this instance does not hold it.
   *
   * @throws {ProtocolError} -32602 when the state is forged, replayed, expired, for another
   * method or caller, or names a call held elsewhere that may not be replayed.
   */
  async resume(
    state: string,
    options: ResumeOptions,
  ): Promise<CallToolResult | InputRequiredResult> {
    const { ctx, method, responses } = options;
    const sealed = await this.#seal.open(state, ctx);
    if (sealed.m !== method) throw invalidState(`for ${sealed.m}, not ${method}`);
    const flow = this.#flows.get(sealed.f);
    if (flow?.expected === sealed.n && flow.pending !== undefined) {
      // Taken at once, so a second retry arriving meanwhile finds it gone.
      const round = flow.pending;
      flow.expected = undefined;
      flow.pending = undefined;
      clearTimeout(flow.timer);
      try {
        await this.#spend(sealed, ctx);
      } catch (error) {
        // Used on another instance already: nothing can resume this call any more.
        // Its call is ended as handed on: the instance that spent the state ran it.
        round.fail(new Error('its requestState was used elsewhere'));
        this.#end(flow, 'its requestState was used elsewhere', CallHandedOn);
        throw error;
      }
      const answer = responses?.[round.key];
      if (answer === undefined) {
        round.fail(new Error(`the client did not answer ${round.request.method}`));
      } else {
        flow.history.push([round.request.method, paramsDigest(round.request.params), answer]);
        round.answer(answer);
      }
      return this.#settle(flow, ctx);
    }
    return this.#replay(sealed, options);
  }

  /**
   * Records the state as used, here and (when the fleet shares a record) everywhere; a state
   * that cannot be used is refused before this, so a refusal does not use it up.
   *
   * @throws {ProtocolError} -32602 when it was used already.
   */
  async #spend(sealed: RoundState, ctx: ServerContext): Promise<void> {
    if (!this.#spent.spend(sealed.n, sealed.e)) throw invalidState('already used');
    if (this.#spendShared !== undefined && !(await this.#spendFleetWide(sealed, ctx))) {
      throw invalidState('already used (on another instance)');
    }
  }

  /** Cancels every flow (the gateway is closing). */
  dispose(): void {
    for (const flow of this.#flows.values()) this.#end(flow, 'the gateway closed');
  }

  async #spendFleetWide(sealed: RoundState, ctx: ServerContext): Promise<boolean> {
    try {
      return await (this.#spendShared?.(sealed.n, sealed.e, { signal: ctx.mcpReq.signal }) ??
        Promise.resolve(true));
    } catch (error) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `could not record the requestState as used: ${error instanceof Error ? error.message : String(error)}; retry`,
      );
    }
  }

  /** Replays a call held elsewhere (or ended here), answering its rounds from the state. */
  async #replay(
    sealed: RoundState,
    options: ResumeOptions,
  ): Promise<CallToolResult | InputRequiredResult> {
    const holder = sealed.i ?? '(unnamed)';
    const here = sealed.i !== undefined && sealed.i === this.#instanceId;
    const where = here ? 'on this instance' : `on instance "${holder}"`;
    const refuse = (reason: string): ProtocolError =>
      invalidState(
        `for a call waiting ${where}, which cannot be resumed ${here ? 'any more' : 'here'}: ${reason}${here ? '' : `; send the retry to instance "${holder}"`}`,
        { instance: holder, reason },
      );
    if (sealed.r === undefined) {
      throw refuse(sealed.w ?? 'the call has ended or is unknown');
    }
    const found = await options.replay(sealed.t, sealed.r.a);
    if (typeof found === 'string') throw refuse(found);
    // A round asked before the call's dispatch replays any tool; a later one, only one that may.
    const beforeDispatch = sealed.r.b === true;
    if (found.refusal !== undefined && !beforeDispatch) throw refuse(found.refusal);
    await this.#spend(sealed, options.ctx);
    const [key, method, digest] = sealed.r.p;
    // An answer that came after its question lapsed is none: the replay asks again.
    const late = sealed.r.d !== undefined && Date.now() > sealed.r.d;
    const answer = late ? undefined : options.responses?.[key];
    const answers =
      answer === undefined ? sealed.r.h : [...sealed.r.h, [method, digest, answer] as const];
    return this.#begin(
      found.run,
      { tool: sealed.t, arguments: sealed.r.a, refusal: found.refusal },
      options.ctx,
      answers,
      beforeDispatch,
    );
  }

  /**
   * Runs `run` as a new flow; a replay answers its requests from `answers` (when
   * `beforeDispatch`, only the questions the gateway asks before the call's dispatch).
   */
  #begin(
    run: RunCall,
    call: CallIdentity,
    ctx: ServerContext,
    answers: readonly Answered[],
    beforeDispatch = false,
  ): Promise<CallToolResult | InputRequiredResult> {
    const controller = new AbortController();
    const flow: Flow = {
      id: randomUUID(),
      call,
      abort: (why) => {
        controller.abort(why);
      },
      history: [],
      dispatched: false,
      queued: [],
    };
    // A replay answers the upstream's requests from `answers` while they match, in order.
    let replayed = 0;
    const ask = (request: UpstreamRequest, options?: InputRequestOptions): Promise<unknown> => {
      const next = answers[replayed];
      if (next !== undefined) {
        const digest = paramsDigest(request.params);
        // Answers given before a dispatch never answer what an upstream asks after it.
        const early = options?.beforeDispatch === true;
        if (next[0] === request.method && next[1] === digest && (early || !beforeDispatch)) {
          replayed++;
          flow.history.push(next);
          if (!early) flow.dispatched = true;
          return Promise.resolve(next[2]);
        }
        // The upstream asked something else this time: the rest is asked anew.
        replayed = answers.length;
      }
      return this.#ask(flow, request, options);
    };
    const requestInput: RequestInput = Object.assign(ask, { release: () => this.#letGo(flow) });
    flow.running = run(controller.signal, requestInput);
    this.#flows.set(flow.id, flow);
    return this.#settle(flow, ctx);
  }

  async #settle(flow: Flow, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const requestSignal = ctx.mcpReq.signal;
    // A client that cancels the request it waits on cancels the call.
    const cancel = (): void => {
      this.#end(flow, 'the client cancelled the call');
    };
    requestSignal.addEventListener('abort', cancel, { once: true });
    try {
      const queued = flow.queued.shift();
      // The call's end or its next round, whichever comes first (one promise: most calls end).
      const next: { round: Round } | { result: CallToolResult } =
        queued === undefined
          ? await new Promise((resolve, reject) => {
              flow.wake = (round) => {
                resolve({ round });
              };
              (flow.running ?? Promise.reject(new Error('no call'))).then((result) => {
                resolve({ result });
              }, reject);
            })
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
      const state = this.#stateOf(flow, next.round);
      next.round.replayable = state.r !== undefined;
      const requestState = await this.#seal.seal(state, ctx);
      // The retry replays it wherever it lands: the call need not wait here (nor runs: a call
      // ended before its dispatch never reaches its backend).
      if (this.#release && state.r !== undefined) {
        this.#end(flow, 'the call asked for input; the retry runs it again', CallHandedOn);
      }
      return {
        resultType: 'input_required',
        inputRequests: { [next.round.key]: next.round.request as InputRequest },
        requestState,
      };
    } finally {
      requestSignal.removeEventListener('abort', cancel);
    }
  }

  /**
   * The state of `flow`'s round `round`, with a replay when the call may be replayed elsewhere:
   * its tool allows it, or nothing has been dispatched yet (marked `b`).
   */
  #stateOf(flow: Flow, round: Round): RoundState {
    const base = {
      f: flow.id,
      n: flow.expected ?? '',
      m: 'tools/call',
      e: Date.now() + this.#ttlMs,
      ...(this.#instanceId === undefined ? {} : { i: this.#instanceId }),
      t: flow.call.tool,
    };
    const beforeDispatch = round.beforeDispatch && !flow.dispatched;
    return { ...base, ...replayOf(flow.call, flow.history, round, beforeDispatch) };
  }

  /**
   * See {@link RequestInput.release}: a call parked in a round whose retry replays it is ended,
   * as `replayRounds: 'always'` ends it once its round is sent. Its upstream then holds one call
   * less (over stdio, the calls in flight decide which caller an upstream's request belongs to).
   */
  #letGo(flow: Flow): ParkedCall {
    if (flow.pending === undefined || !this.#flows.has(flow.id)) return undefined;
    if (flow.pending.replayable !== true) return 'parked';
    this.#end(flow, 'another call needed its upstream; the retry runs it again', CallHandedOn);
    return 'released';
  }

  #end(flow: Flow, why: string, reason: new (message: string) => Error = Error): void {
    if (!this.#flows.delete(flow.id)) return;
    clearTimeout(flow.timer);
    flow.pending?.fail(new Error(why));
    for (const round of flow.queued) round.fail(new Error(why));
    flow.abort(new reason(why));
  }
}
