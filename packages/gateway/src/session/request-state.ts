// The sealed `requestState` of a 2026-07-28 `input_required` round: what it carries, how it is
// sealed and opened, the digest that matches an upstream's repeated request to an answer, and
// the memory that makes each state serve once.
import { createHash, randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ToolError } from '@toolplane/toolkit';
import { canonicalJson } from '@toolplane/toolmodel';

/** One round answered: the upstream request's method, its params' digest, the client's answer. */
export type Answered = readonly [method: string, digest: string, answer: unknown];

/** What a call's replay on another instance needs, beyond the tool's name. */
export interface Replay {
  /** The call's arguments. */
  readonly a: Readonly<Record<string, unknown>>;
  /** The rounds answered so far, in the order the upstream asked them. */
  readonly h: readonly Answered[];
  /** The round this state asks: its key in `inputRequests`, its method and params' digest. */
  readonly p: readonly [key: string, method: string, digest: string];
  /**
   * Set when every round so far was asked before the call's dispatch (the gateway's approval):
   * the call may be replayed whatever its tool, and its answers answer only such questions.
   */
  readonly b?: true;
  /** When the round `p` lapses (ms since the epoch): a later answer is dropped and asked anew. */
  readonly d?: number;
}

/** The payload sealed into a round's `requestState`. */
export interface RoundState {
  /** The flow, in the instance that holds it. */
  readonly f: string;
  /** A one-time nonce. */
  readonly n: string;
  /** The method the state is for (`tools/call`). */
  readonly m: string;
  /** Expiry, in ms since the epoch. */
  readonly e: number;
  /** The instance holding the flow, when it has a name. */
  readonly i?: string;
  /** The tool's exposed name. */
  readonly t: string;
  /** Present when another instance may replay the call. */
  readonly r?: Replay;
  /** Why another instance may not replay it (when `r` is absent). */
  readonly w?: string;
}

/**
 * Largest `requestState` that carries a replay, in bytes of the payload's JSON. The client sends
 * the state back with every retry, so a call whose arguments and answers are larger is not
 * replayed elsewhere (it still resumes on its own instance).
 */
export const MAX_REPLAY_STATE_BYTES = 64 * 1024;

/**
 * What a round's state carries for another instance: the replay of its call (`r`), or why the
 * call cannot be replayed there (`w`): its tool does not allow it once it may have reached its
 * backend (`call.refusal`, unless every round so far came `beforeDispatch`), or the replay would
 * exceed {@link MAX_REPLAY_STATE_BYTES}.
 */
export function replayOf(
  call: { readonly arguments: Readonly<Record<string, unknown>>; readonly refusal?: string },
  history: readonly Answered[],
  round: {
    readonly key: string;
    readonly request: { readonly method: string; readonly params?: unknown };
    readonly answerBy: number | undefined;
  },
  beforeDispatch: boolean,
): { readonly r: Replay } | { readonly w: string } {
  if (call.refusal !== undefined && !beforeDispatch) return { w: call.refusal };
  const replay: Replay = {
    a: call.arguments,
    h: history,
    p: [round.key, round.request.method, paramsDigest(round.request.params)] as const,
    ...(beforeDispatch ? { b: true } : {}),
    ...(round.answerBy === undefined ? {} : { d: round.answerBy }),
  };
  if (Buffer.byteLength(JSON.stringify(replay)) > MAX_REPLAY_STATE_BYTES) {
    return {
      w: `its arguments and answers exceed the ${String(MAX_REPLAY_STATE_BYTES / 1024)} KiB a replayable requestState may carry`,
    };
  }
  return { r: replay };
}

/** The -32602 a retry gets for a state it cannot use. */
export const invalidState = (why: string, data?: Record<string, unknown>): ProtocolError =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `requestState is ${why}; start the call again without it`,
    data,
  );

const REASONS: Readonly<Record<string, string>> = {
  malformed: 'malformed',
  mac: 'not one this gateway sealed (every instance behind one balancer needs the same requestStateKey)',
  expired: 'expired',
  bind: 'bound to another caller',
};

/**
 * Seals and opens round states with the SDK's HMAC-SHA256 codec, bound to the caller (an OAuth
 * principal's issuer, subject and client; nothing without OAuth).
 */
export class StateSeal {
  readonly #codec: RequestStateCodec<RoundState>;

  /**
   * @throws {ToolError} `invalid_config` for a key shorter than 32 bytes.
   */
  constructor(options: {
    key?: string | Uint8Array | undefined;
    ttlMs: number;
    bind: (ctx: ServerContext) => string;
  }) {
    try {
      this.#codec = createRequestStateCodec<RoundState>({
        key: options.key ?? randomBytes(32),
        // The payload's own expiry (ms) is the one that counts; the codec's is a backstop.
        ttlSeconds: Math.ceil(options.ttlMs / 1000) + 1,
        bind: options.bind,
      });
    } catch (error) {
      throw new ToolError(
        'invalid_config',
        `requestStateKey: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  seal(payload: RoundState, ctx: ServerContext): Promise<string> {
    return this.#codec.mint(payload, ctx);
  }

  /** @throws {ProtocolError} -32602 for a forged, malformed, expired or rebound state. */
  async open(state: string, ctx: ServerContext): Promise<RoundState> {
    let opened: RoundState;
    try {
      opened = await this.#codec.verify(state, ctx);
    } catch (error) {
      const reason = error instanceof Error ? error.message : '';
      throw invalidState(REASONS[reason] ?? 'malformed');
    }
    if (!isRoundState(opened)) throw invalidState('malformed');
    if (opened.e < Date.now()) throw invalidState('expired');
    return opened;
  }
}

function isRoundState(value: unknown): value is RoundState {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.f === 'string' &&
    typeof s.n === 'string' &&
    typeof s.m === 'string' &&
    typeof s.e === 'number' &&
    typeof s.t === 'string'
  );
}

/**
 * The digest an upstream request is matched by on replay: SHA-256 of its params as canonical
 * JSON (keys sorted), `_meta` left out (it carries per-request tokens, not the question).
 */
export function paramsDigest(params: unknown): string {
  const bare =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? Object.fromEntries(Object.entries(params).filter(([key]) => key !== '_meta'))
      : params;
  return createHash('sha256').update(canonicalJson(bare)).digest('base64url');
}

// Canonical JSON lives in toolmodel (approvals hash arguments with it too); re-exported for
// this package's callers.
export { canonicalJson };

/**
 * The nonces of states used here, each kept until its state expires: a state serves once per
 * instance. Across instances, see {@link SpendRequestState}.
 */
export class SpentStates {
  readonly #spent = new Map<string, number>();
  #nextSweep = 0;

  /** Records `nonce` as used; false when it was used already. */
  spend(nonce: string, expiresAt: number): boolean {
    const now = Date.now();
    if (now >= this.#nextSweep) {
      for (const [key, expiry] of this.#spent) if (expiry < now) this.#spent.delete(key);
      this.#nextSweep = now + 1_000;
    }
    if (this.#spent.has(nonce)) return false;
    this.#spent.set(nonce, expiresAt);
    return true;
  }
}

/**
 * Records a state's nonce as used across the fleet (e.g. in the shared store): resolves `true`
 * the first time any instance spends it, `false` after. See `GatewayOptions.spendRequestState`.
 */
export type SpendRequestState = (
  nonce: string,
  expiresAt: number,
  options: { signal: AbortSignal },
) => Promise<boolean>;
