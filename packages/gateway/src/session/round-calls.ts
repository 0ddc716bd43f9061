// What a 2026-07-28 call that may ask its client for input is, to the flows that carry its
// `input_required` rounds (input-rounds.ts) and to the gateway that runs it: how it asks, how it
// runs, and what its retry brings.
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { UpstreamRequest } from '@toolplane/toolkit';

/** How a call asks its client for input (see {@link RunCall}). */
export interface RequestInput {
  (request: UpstreamRequest, options?: InputRequestOptions): Promise<unknown>;
  /**
   * Lets go of the call while it waits, parked, for its client's answer to a round: `'released'`
   * when it was ended because its retry runs it again anyway (its state carries a replay), so it
   * holds its upstream no more; `'parked'` when it waits so but must be kept (its retry could
   * not replay it); `undefined` when it is not waiting for its client.
   */
  readonly release?: (() => ParkedCall) | undefined;
}

/** What {@link RequestInput.release} did: see there. */
export type ParkedCall = 'released' | 'parked' | undefined;

/** What a call says about one question it asks its client. */
export interface InputRequestOptions {
  /**
   * The gateway asks it before the call reaches its backend (its approval question): nothing has
   * run, so the call may be run again from the start elsewhere to answer it, whatever the tool.
   * Never set for an upstream's own requests.
   */
  readonly beforeDispatch?: boolean | undefined;
  /**
   * When the question lapses (ms since the epoch): a replay elsewhere does not use an answer
   * given after it, but asks again, as the call held here would have stopped waiting.
   */
  readonly answerBy?: number | undefined;
  /**
   * Aborts when the asker stops waiting for the answer (an approval's `timeoutMs`): a round sent
   * with a replay was handed to the client's retry, so the call held here ends then, as one
   * handed on, not as a refusal.
   */
  readonly signal?: AbortSignal | undefined;
}

/** Runs a call's upstream part: with the flow's signal, asking the client through `requestInput`. */
export type RunCall = (signal: AbortSignal, requestInput: RequestInput) => Promise<CallToolResult>;

/** A call to replay here: how to run it, and why it may not be replayed past its dispatch. */
export interface ReplayCall {
  readonly run: RunCall;
  /** See {@link CallIdentity.refusal}. */
  readonly refusal: string | undefined;
}

/** The call a flow runs, as a replay on another instance needs it. */
export interface CallIdentity {
  /** The tool's exposed name. */
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * Why the call may not be replayed elsewhere (not read-only or idempotent), or undefined. It
   * holds only once the call may have reached its backend: a round asked before that (the
   * gateway's approval) carries a replay anyway.
   */
  readonly refusal: string | undefined;
}

/** What a retry carrying a `requestState` brings. */
export interface ResumeOptions {
  readonly method: string;
  readonly responses: Readonly<Record<string, unknown>> | undefined;
  /** The retry's context: its signal, and its caller (the state is bound to the caller). */
  readonly ctx: ServerContext;
  /**
   * The call to replay here when the state's flow is not held by this instance, or why it cannot
   * be found here (which the retry gets as -32602, as it does the call's `refusal` when the
   * state's round came after the call's dispatch).
   */
  readonly replay: (
    tool: string,
    args: Readonly<Record<string, unknown>>,
  ) => Promise<ReplayCall | string>;
}
