import {
  checkCount,
  inexactInteger,
  inexactIntegerMessage,
  isPlainObject,
  MAX_TIMER_MS,
  ToolError,
  whenAborted,
} from '@toolplane/toolmodel';
import type { ProgressEvent, ProgressListener, RunResult } from '@toolplane/toolrun';
import { charBoundOf, maxOutputCharsOf } from './budget.js';
import {
  draftOfFailure,
  draftOfRun,
  type CallOutcome,
  type Draft,
  type Drafting,
} from './outcomes.js';
import { asToolError } from './results.js';
import { callThrough, type ToolSource } from './source.js';
import { boundTurn } from './turn-budget.js';

/** One tool call of a model's turn, as the provider packages read it off a response. */
export interface ToolCallRequest {
  /** The provider's ID of the call, echoed in its result. */
  readonly callId: string;
  /** The name the model called, as the tools were exposed. */
  readonly name: string;
  /** The arguments: JSON text (OpenAI) or an already-parsed value (Anthropic, Gemini). */
  readonly arguments: unknown;
  /**
   * Why the model's reply ended before this call's arguments were complete (the provider's stop
   * reason, e.g. Anthropic's `max_tokens`). Such a call is answered as an `invalid_argument`
   * error and never run: what an SDK parsed of cut-off input can be a valid call the model did
   * not mean (a list short of its last items, a flag left out).
   */
  readonly cutOff?: string;
}

/** What runs a tool that lives in the adapter itself (search mode's tools), not in the source. */
export type LocalRun = (
  args: Record<string, unknown>,
  options: {
    readonly signal?: AbortSignal;
    readonly meta?: Record<string, unknown>;
    readonly onProgress?: ProgressListener;
  },
) => Promise<Pick<RunResult, 'structured' | 'mcpResult'>>;

/**
 * How a turn finds what a called name stands for: a `resolve` function, or an object with one
 * (what {@link exposeTools} returns) whose `notFound(name)` says what to tell a model that called
 * a name standing for nothing (the name it likely meant, or how to find one).
 */
export type CallTargets =
  | ((name: string) => ResolvedCall | undefined)
  | {
      readonly resolve: (name: string) => ResolvedCall | undefined;
      readonly notFound?: (name: string) => string;
    };

/** What an exposed name stands for: the tool's ID, and how to undo its schema conversion. */
export interface ResolvedCall {
  readonly id: string;
  /** Runs the call instead of the source (search mode's tools). */
  readonly run?: LocalRun;
  readonly restore?: (args: Record<string, unknown>) => Record<string, unknown>;
}

/** An MCP progress report of one call of a turn, as {@link RunCallsOptions.onProgress} hears it. */
export interface CallProgress extends ProgressEvent {
  /** The provider's ID of the call the report is about. */
  readonly callId: string;
  /** The name the model called. */
  readonly name: string;
  /** The tool's canonical ID (in search mode, the search tool's own name, e.g. `call_tool`). */
  readonly toolId: string;
}

/** Options of {@link runCalls}, shared by every provider's `run…` function. */
export interface RunCallsOptions {
  /** Aborting cancels every call still running and rejects with a `cancelled` ToolError. */
  readonly signal?: AbortSignal;
  /** Most calls running at once (default {@link DEFAULT_CONCURRENCY}). */
  readonly concurrency?: number;
  /**
   * Milliseconds each call may take, from its start (default: no limit of its own; MCP
   * connectors keep their request timeouts). A call past it is cancelled and answered to the
   * model as a `timeout` error. Each timed call gets an `AbortSignal` of its own, a few
   * microseconds on Node 20.
   */
  readonly timeoutMs?: number;
  /**
   * At most this many characters of one result reach the model (default 200,000): its text,
   * JSON, base64 images and the notes standing in for other media. Past it, text is cut with a
   * note saying how much was left out, and the blocks left are told by one note.
   */
  readonly maxOutputChars?: number;
  /**
   * At most this many characters of all the turn's results together reach the model (default:
   * `maxOutputChars`, so a turn of one call is cut as before), counted as `maxOutputChars` counts;
   * a call sent twice counts once. Past it the bound is shared fairly, whichever call finished
   * first: results under the fair level are kept whole, larger ones are each cut to that level
   * (text with a note saying how much was left out, media that no longer fits left out with a
   * note). Below `maxOutputChars`, it is the tighter of the two.
   */
  readonly maxTurnOutputChars?: number;
  /**
   * Whether the model reads a successful result's structured content, when it is a JSON object,
   * in place of its text blocks (as Gemini's `functionResponse` output does). The bounds then
   * count and cut its JSON text, which is the outcome's first part: whole when it fits, so the
   * object can be sent as it is, and cut with a note otherwise.
   */
  readonly readsStructured?: boolean;
  /** Sent with every call as its `_meta`. */
  readonly meta?: Record<string, unknown>;
  /**
   * Hears each progress report of each call while the turn runs (for MCP tools: the server's
   * `notifications/progress`), tagged with the call it is about, in the order they arrived. A
   * listener that throws is the listener's problem, never the call's. Without it no progress is
   * asked for.
   */
  readonly onProgress?: (event: CallProgress) => void;
}

export const DEFAULT_CONCURRENCY = 8;

/**
 * Runs every tool call of a model's turn through the source, at most `concurrency` at once, each
 * under its own timeout and the caller's signal, and answers each in order: malformed JSON
 * arguments, calls cut off ({@link ToolCallRequest.cutOff}), unknown names, failures and timeouts
 * become error outcomes the model reads, never exceptions. A call sent twice in one turn (the
 * same ID, name and arguments) runs once, and both are answered with its outcome. What the model
 * reads is cut once every answer is in: each to `maxOutputChars`, all together to
 * `maxTurnOutputChars`, shared fairly.
 *
 * @throws {ToolError} `cancelled` when `options.signal` aborts; `invalid_argument` for a
 * `concurrency` that is not a positive integer, a `timeoutMs` that is not a number of 0 or more
 * (past 2^31 − 1 only `Infinity`, no limit),
 * or a `maxOutputChars` or `maxTurnOutputChars` that is not a whole number of 1 or more.
 */
export async function runCalls(
  source: ToolSource,
  calls: readonly ToolCallRequest[],
  targets: CallTargets,
  options: RunCallsOptions = {},
): Promise<CallOutcome[]> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  checkCount(concurrency, 'concurrency');
  const limit = options.timeoutMs ?? 0;
  // Infinity is no limit, as 0 is; a finite one past a timer's reach fired at once (Node's 1 ms).
  if (
    typeof limit !== 'number' ||
    Number.isNaN(limit) ||
    limit < 0 ||
    (Number.isFinite(limit) && limit > MAX_TIMER_MS)
  ) {
    throw new ToolError(
      'invalid_argument',
      `timeoutMs must be 0 (no limit) or more milliseconds, at most ${String(MAX_TIMER_MS)} (about 24.8 days), not ${String(limit)}`,
    );
  }
  const maxOutputChars = maxOutputCharsOf(options.maxOutputChars);
  const maxTurnOutputChars = charBoundOf(
    options.maxTurnOutputChars,
    'maxTurnOutputChars',
    maxOutputChars,
  );
  const signal = options.signal;
  if (signal?.aborted === true) throw cancelledError(signal);
  const turn: Turn = {
    source,
    resolve: typeof targets === 'function' ? targets : targets.resolve,
    notFound: typeof targets === 'function' ? undefined : targets.notFound,
    options,
    shared: options.meta === undefined ? NO_OPTIONS : { meta: options.meta },
    drafting: { maxOutputChars, readsStructured: options.readsStructured === true },
  };
  const drafts = new Array<Draft | undefined>(calls.length);
  const repeats = repeatedCalls(calls);
  const width = Math.min(concurrency, calls.length);
  if (width <= 1) {
    // One at a time needs no workers: the common turn of one call pays for no closure.
    for (let at = 0; at < calls.length && !isAborted(signal); at++) {
      if (repeats?.has(at) !== true) drafts[at] = await runOne(turn, calls[at] as ToolCallRequest);
    }
  } else {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < calls.length && signal?.aborted !== true) {
        const at = next++;
        if (repeats?.has(at) !== true)
          drafts[at] = await runOne(turn, calls[at] as ToolCallRequest);
      }
    };
    const workers: Promise<void>[] = [];
    for (let i = 0; i < width; i++) workers.push(worker());
    await Promise.all(workers);
  }
  // Read through a function: TypeScript keeps `aborted` narrowed across the await.
  if (isAborted(signal)) throw cancelledError(signal);
  // Cut once every answer is in, so the cut never depends on which call finished first.
  const outcomes = boundTurn(drafts, maxOutputChars, maxTurnOutputChars);
  if (repeats !== undefined) for (const [at, first] of repeats) outcomes[at] = outcomes[first];
  return outcomes as CallOutcome[];
}

/**
 * The calls of a turn that repeat an earlier one verbatim (the same ID, name and arguments: one
 * call a provider or a proxy sent twice), each with the index of the call it repeats; they are
 * not run, and answered with that call's outcome. Calls that only share an ID (some servers give
 * every call the same one, or none) are different calls, and run. `undefined` when none repeats.
 */
function repeatedCalls(calls: readonly ToolCallRequest[]): Map<number, number> | undefined {
  if (calls.length < 2) return undefined;
  // Only calls whose ID comes back are compared whole: a turn's IDs are most often all distinct.
  const ids = new Set<string>();
  const shared = new Set<string>();
  for (const { callId } of calls) {
    if (ids.has(callId)) shared.add(callId);
    else ids.add(callId);
  }
  shared.delete('');
  if (shared.size === 0) return undefined;
  let seen: Map<string, number> | undefined;
  let repeats: Map<number, number> | undefined;
  for (let at = 0; at < calls.length; at++) {
    const call = calls[at] as ToolCallRequest;
    if (!shared.has(call.callId)) continue;
    const key = JSON.stringify([call.callId, call.name, call.arguments ?? null]);
    const first = (seen ??= new Map<string, number>()).get(key);
    if (first === undefined) seen.set(key, at);
    else (repeats ??= new Map<number, number>()).set(at, first);
  }
  return repeats;
}

/** What every call of one turn shares, worked out once per turn. */
interface Turn {
  readonly source: ToolSource;
  readonly resolve: (name: string) => ResolvedCall | undefined;
  readonly notFound: ((name: string) => string) | undefined;
  readonly options: RunCallsOptions;
  /** The options of a call without progress, shared by every call. */
  readonly shared: CallOptions;
  readonly drafting: Drafting;
}

interface CallOptions {
  readonly meta?: Record<string, unknown>;
  readonly onProgress?: ProgressListener;
}

const NO_OPTIONS: CallOptions = Object.freeze({});

function cancelledError(signal: AbortSignal | undefined): ToolError {
  return new ToolError('cancelled', 'the tool calls were cancelled', { cause: signal?.reason });
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Parses a call's arguments: an object, or the reason it is not one (text that is not JSON, JSON
 * that is not an object, an integer JSON cannot carry exactly).
 */
export function parseArguments(raw: unknown): Record<string, unknown> | string {
  let value = raw;
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON object`;
    }
    const inexact = inexactInteger(raw);
    if (inexact !== undefined) return inexactIntegerMessage(inexact);
  }
  return isPlainObject(value) ? value : 'the arguments must be a JSON object';
}

async function runOne(turn: Turn, call: ToolCallRequest): Promise<Draft> {
  const { options } = turn;
  const target = turn.resolve(call.name);
  if (target === undefined) {
    const said = turn.notFound?.(call.name) ?? `no tool is named ${JSON.stringify(call.name)}`;
    return draftOfFailure(call, undefined, new ToolError('not_found', said), turn.drafting);
  }
  const toolId = target.id;
  if (call.cutOff !== undefined) {
    const error = new ToolError(
      'invalid_argument',
      `the reply was cut off (${call.cutOff}) while this call's arguments were being written, so the tool was not run; call it again with room to finish`,
      { toolId },
    );
    return draftOfFailure(call, toolId, error, turn.drafting);
  }
  const parsed = parseArguments(call.arguments);
  if (typeof parsed === 'string') {
    return draftOfFailure(
      call,
      toolId,
      new ToolError('invalid_argument', parsed, { toolId }),
      turn.drafting,
    );
  }
  const args = target.restore === undefined ? parsed : target.restore(parsed);
  const outer = options.signal;
  const limit = options.timeoutMs ?? 0;
  const timed = limit > 0 && Number.isFinite(limit);
  const shared =
    options.onProgress === undefined
      ? turn.shared
      : withProgress(turn.shared, options.onProgress, call, toolId);
  if (!timed && outer === undefined) {
    // Nothing can stop the call early: no signal of its own, which costs microseconds on Node.
    try {
      const run =
        target.run === undefined
          ? callThrough(turn.source, toolId, args, shared)
          : target.run(args, shared);
      return draftOfRun(call, toolId, await run, turn.drafting);
    } catch (thrown) {
      return draftOfFailure(call, toolId, asToolError(thrown, toolId), turn.drafting);
    }
  }
  // Its own signal only when it has its own timeout; otherwise the caller's signal is enough.
  const controller = timed ? new AbortController() : undefined;
  const signal = (controller?.signal ?? outer) as AbortSignal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopWaiting: ((reason: unknown) => void) | undefined;
  // Settles when the call must stop waiting, even for a backend that ignores its signal.
  const stop = new Promise<never>((_resolve, reject) => {
    stopWaiting = reject;
  });
  const abort = (): void => {
    controller?.abort(outer?.reason);
    stopWaiting?.(outer?.reason);
  };
  const stopForwarding = outer === undefined ? undefined : whenAborted(outer, abort);
  if (controller !== undefined) {
    timer = setTimeout(() => {
      const reason = new ToolError('timeout', `the tool took longer than ${String(limit)} ms`, {
        toolId,
      });
      controller.abort(reason);
      stopWaiting?.(reason);
    }, limit);
  }
  try {
    const run = await Promise.race([
      target.run === undefined
        ? callThrough(turn.source, toolId, args, { signal, ...shared })
        : target.run(args, { signal, ...shared }),
      stop,
    ]);
    return draftOfRun(call, toolId, run, turn.drafting);
  } catch (thrown) {
    const reason: unknown = signal.reason;
    if (ToolError.isInstance(reason) && reason.code === 'timeout') {
      return draftOfFailure(call, toolId, reason, turn.drafting);
    }
    return draftOfFailure(call, toolId, asToolError(thrown, toolId), turn.drafting);
  } finally {
    clearTimeout(timer);
    stopForwarding?.();
    stop.catch(() => undefined);
  }
}

/** A call's options with its own progress listener, which tags each report with the call. */
function withProgress(
  shared: CallOptions,
  listener: (event: CallProgress) => void,
  call: ToolCallRequest,
  toolId: string,
): CallOptions {
  const onProgress = (event: ProgressEvent): void => {
    try {
      listener({ ...event, callId: call.callId, name: call.name, toolId });
    } catch {
      // A failing listener is the listener's problem, never the call's.
    }
  };
  return { ...shared, onProgress };
}
