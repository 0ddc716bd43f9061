import { ToolError } from '@toolplane/toolmodel';
import type { ProgressEvent, ProgressListener, RunResult } from '@toolplane/toolrun';
import { DEFAULT_MAX_OUTPUT_CHARS, leftOutNote, mediaOf, OutputBudget } from './budget.js';
import {
  asToolError,
  fromRun as resultOfRun,
  upstreamErrorOf,
  type ContentBlock,
} from './results.js';
import { callThrough, type ToolSource } from './source.js';

/** One tool call of a model's turn, as the provider packages read it off a response. */
export interface ToolCallRequest {
  /** The provider's ID of the call, echoed in its result. */
  readonly callId: string;
  /** The name the model called, as the tools were exposed. */
  readonly name: string;
  /** The arguments: JSON text (OpenAI) or an already-parsed value (Anthropic, Gemini). */
  readonly arguments: unknown;
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
  /** At most this many characters of one result reach the model (default 200,000). */
  readonly maxOutputChars?: number;
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

/** One piece of a tool's result, in the form every provider package formats its own way. */
export type ResultPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

/** A call's answer: its parts, and whether it is an error the model should read as one. */
export interface CallOutcome {
  readonly callId: string;
  readonly name: string;
  /** The tool's canonical ID; absent when the name matched no tool. */
  readonly toolId?: string;
  readonly isError: boolean;
  /** Toolplane's error code when the call failed before or instead of the tool answering. */
  readonly code?: string;
  readonly parts: readonly ResultPart[];
  /** The result as JSON when it has one (MCP `structuredContent`, a local tool's value). */
  readonly structured?: unknown;
}

export const DEFAULT_CONCURRENCY = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Runs every tool call of a model's turn through the source, at most `concurrency` at once, each
 * under its own timeout and the caller's signal, and answers each in order: malformed JSON
 * arguments, unknown names, failures and timeouts become error outcomes the model reads, never
 * exceptions.
 *
 * @throws {ToolError} `cancelled` when `options.signal` aborts; `invalid_argument` for a
 * `concurrency` that is not a positive integer or a `timeoutMs` that is not a number of 0 or more.
 */
export async function runCalls(
  source: ToolSource,
  calls: readonly ToolCallRequest[],
  resolve: (name: string) => ResolvedCall | undefined,
  options: RunCallsOptions = {},
): Promise<CallOutcome[]> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ToolError(
      'invalid_argument',
      `concurrency must be a positive integer, not ${String(concurrency)}`,
    );
  }
  const limit = options.timeoutMs ?? 0;
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0) {
    throw new ToolError(
      'invalid_argument',
      `timeoutMs must be 0 or more milliseconds, not ${String(limit)}`,
    );
  }
  const signal = options.signal;
  const cancelled = (): ToolError =>
    new ToolError('cancelled', 'the tool calls were cancelled', { cause: signal?.reason });
  if (signal?.aborted === true) throw cancelled();
  const outcomes = new Array<CallOutcome>(calls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length && signal?.aborted !== true) {
      const at = next++;
      outcomes[at] = await runOne(source, calls[at] as ToolCallRequest, resolve, options);
    }
  };
  const width = Math.max(1, Math.min(concurrency, calls.length));
  await Promise.all(Array.from({ length: width }, worker));
  // Read through a function: TypeScript keeps `aborted` narrowed across the await.
  if (isAborted(signal)) throw cancelled();
  return outcomes;
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Parses a call's arguments: an object, or the reason it is not one. */
export function parseArguments(raw: unknown): Record<string, unknown> | string {
  let value = raw;
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON object`;
    }
  }
  return isRecord(value) ? value : 'the arguments must be a JSON object';
}

async function runOne(
  source: ToolSource,
  call: ToolCallRequest,
  resolve: (name: string) => ResolvedCall | undefined,
  options: RunCallsOptions,
): Promise<CallOutcome> {
  const base = { callId: call.callId, name: call.name };
  const budget = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const target = resolve(call.name);
  if (target === undefined) {
    return failure(
      base,
      new ToolError('not_found', `no tool is named ${JSON.stringify(call.name)}`),
      budget,
    );
  }
  const withId = { ...base, toolId: target.id };
  const parsed = parseArguments(call.arguments);
  if (typeof parsed === 'string') {
    return failure(
      withId,
      new ToolError('invalid_argument', parsed, { toolId: target.id }),
      budget,
    );
  }
  const args = target.restore === undefined ? parsed : target.restore(parsed);
  const outer = options.signal;
  const limit = options.timeoutMs ?? 0;
  const timed = limit > 0 && Number.isFinite(limit);
  const shared = callOptions(options, call, target.id);
  if (!timed && outer === undefined) {
    // Nothing can stop the call early: no signal of its own, which costs microseconds on Node.
    try {
      const run =
        target.run === undefined
          ? callThrough(source, target.id, args, shared)
          : target.run(args, shared);
      return fromRun(withId, await run, budget);
    } catch (thrown) {
      return failure(withId, asToolError(thrown, target.id), budget);
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
  outer?.addEventListener('abort', abort, { once: true });
  if (controller !== undefined) {
    timer = setTimeout(() => {
      const reason = new ToolError('timeout', `the tool took longer than ${String(limit)} ms`, {
        toolId: target.id,
      });
      controller.abort(reason);
      stopWaiting?.(reason);
    }, limit);
  }
  try {
    const run = await Promise.race([
      target.run === undefined
        ? callThrough(source, target.id, args, { signal, ...shared })
        : target.run(args, { signal, ...shared }),
      stop,
    ]);
    return fromRun(withId, run, budget);
  } catch (thrown) {
    const reason: unknown = signal.reason;
    if (ToolError.isInstance(reason) && reason.code === 'timeout') {
      return failure(withId, reason, budget);
    }
    return failure(withId, asToolError(thrown, target.id), budget);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', abort);
    stop.catch(() => undefined);
  }
}

/** The options every call of a turn shares, plus its own progress listener when one is wanted. */
function callOptions(
  options: RunCallsOptions,
  call: ToolCallRequest,
  toolId: string,
): { meta?: Record<string, unknown>; onProgress?: ProgressListener } {
  const listener = options.onProgress;
  if (listener === undefined) return options.meta === undefined ? {} : { meta: options.meta };
  const onProgress = (event: ProgressEvent): void => {
    try {
      listener({ ...event, callId: call.callId, name: call.name, toolId });
    } catch {
      // A failing listener is the listener's problem, never the call's.
    }
  };
  return options.meta === undefined ? { onProgress } : { meta: options.meta, onProgress };
}

/** A successful run as an outcome: an MCP result's blocks, a local tool's value as JSON text. */
function fromRun(
  base: Omit<CallOutcome, 'isError' | 'parts'>,
  run: Pick<RunResult, 'structured' | 'mcpResult'>,
  budget: number,
): CallOutcome {
  const result = resultOfRun(run);
  // Any JSON value, not only the objects a ToolResult keeps as structured content.
  const structured: unknown =
    run.mcpResult === undefined ? run.structured : run.mcpResult.structuredContent;
  const spend = new OutputBudget(budget);
  const parts = toParts(result.content, spend);
  if (parts.length === 0 && structured !== undefined) {
    parts.push({ type: 'text', text: spend.text(JSON.stringify(structured)) });
  }
  return {
    ...base,
    isError: result.isError === true,
    parts,
    ...(structured === undefined ? {} : { structured }),
  };
}

/**
 * A failure as an outcome: an upstream's own error result (which the runner carries as the
 * failure's cause) as it was sent, any other failure as `code: message`.
 */
function failure(
  base: Omit<CallOutcome, 'isError' | 'parts'>,
  error: ToolError,
  budget: number,
): CallOutcome {
  const spend = new OutputBudget(budget);
  const upstream = upstreamErrorOf(error);
  const parts: ResultPart[] =
    upstream === undefined
      ? [{ type: 'text', text: spend.text(`${error.code}: ${error.message}`) }]
      : toParts(upstream.content, spend);
  return { ...base, isError: true, code: error.code, parts };
}

/** Blocks as parts: text cut to the budget, images while they fit, notes for other media. */
function toParts(content: readonly ContentBlock[], budget: OutputBudget): ResultPart[] {
  const parts: ResultPart[] = [];
  for (const block of content) {
    const media = mediaOf(block);
    if (media === undefined) {
      parts.push({ type: 'text', text: budget.blockText(block) ?? '' });
    } else if (media.kind === 'audio') {
      parts.push({ type: 'text', text: leftOutNote(media, 'tool results take no audio') });
    } else if (media.kind === 'image' || media.mimeType.startsWith('image/')) {
      parts.push(
        budget.take(media)
          ? { type: 'image', data: media.data, mimeType: media.mimeType }
          : { type: 'text', text: leftOutNote(media, 'over the output limit') },
      );
    } else {
      parts.push({ type: 'text', text: leftOutNote(media, 'tool results take text and images') });
    }
  }
  return parts;
}

/** The text of an outcome's parts, joined; images left out. */
export function outcomeText(outcome: CallOutcome): string {
  return outcome.parts
    .filter((part): part is Extract<ResultPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
