import {
  HANDED_ON_OUTCOME,
  handedOn,
  ToolError,
  type Middleware,
  type ProgressEvent,
} from '@toolplane/toolkit';

/**
 * How a call ended: `ok`, `is_error` (the tool reported a failure), `input_required` (its answer
 * was a question to the client, whose retry runs the call again: a gateway fleet's approval
 * round, counted where the retry runs; not a failure) or a `ToolError` code.
 */
export type CallOutcome = 'ok' | 'is_error' | (string & {});

/** One tool call as the dashboard's live log shows it. */
export interface CallEntry {
  /** Rises by one per call, per feed. */
  readonly id: number;
  readonly tool: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  /** Set once it ended. */
  readonly durationMs?: number;
  readonly outcome?: CallOutcome;
  /** The last progress notification heard. */
  readonly progress?: ProgressEvent;
  /**
   * Set while the call waits before it runs: `approval` while a person is asked to approve it
   * (the toolkit's `approval`, seen when the feed is one of its `observers`).
   */
  readonly waiting?: 'approval';
}

/**
 * What a {@link CallFeed} tells its listeners, discriminated on `type`: a call started, changed
 * while it runs (`call_progress`: progress heard, or it began or stopped waiting for approval),
 * or ended.
 */
export type CallFeedEvent =
  | { readonly type: 'call_start'; readonly call: CallEntry }
  | { readonly type: 'call_progress'; readonly call: CallEntry }
  | { readonly type: 'call_end'; readonly call: CallEntry };

/** One minute of calls, for the charts. */
export interface MinuteStats {
  /** The minute's start, epoch seconds. */
  readonly t: number;
  readonly calls: number;
  readonly errors: number;
  /** Median and 95th percentile duration of the minute's calls, in ms (null without calls). */
  readonly p50: number | null;
  readonly p95: number | null;
}

/** The feed's figures: the last {@link CallFeedOptions.minutes} minutes, oldest first. */
export interface CallStats {
  readonly minutes: readonly MinuteStats[];
  readonly total: number;
  readonly errors: number;
}

/** Options of {@link createCallFeed}. */
export interface CallFeedOptions {
  /** Calls kept for the live log (default 200). */
  readonly keep?: number;
  /** Minutes the charts span (default 30). */
  readonly minutes?: number;
  /** The clock, epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * The calls a gateway serves, observed: a runner {@link Middleware} that records every call
 * (tool, duration, outcome, progress, waiting for approval; never the arguments) for the
 * dashboard's live log and charts. Pass `feed.middleware` in the toolkit's `observers` to see
 * every client's calls, those its `approval` holds or refuses included (in `middleware` it sees
 * only the calls approval lets through); without it the dashboard sees only the calls it makes
 * itself.
 */
export interface CallFeed {
  /** Records the calls that pass through it; see {@link CallFeed}. */
  readonly middleware: Middleware;
  /** Whether {@link CallFeed.middleware} is installed in a runner. */
  readonly installed: boolean;
  /** Runs `invoke` as one recorded call of `tool` (for calls that bypass the middleware). */
  observe<T>(
    tool: string,
    invoke: (onProgress: (event: ProgressEvent) => void) => Promise<T>,
    outcomeOf?: (value: T) => CallOutcome,
  ): Promise<T>;
  /** The latest calls, oldest first. */
  recent(): CallEntry[];
  /** Per-minute figures. */
  stats(): CallStats;
  /** Hears every event; returns the unsubscribe function. */
  subscribe(listener: (event: CallFeedEvent) => void): () => void;
}

// Durations kept per minute for its percentiles: enough for a stable p95, bounded in memory.
const SAMPLES_PER_MINUTE = 1_000;

interface Minute {
  t: number;
  calls: number;
  errors: number;
  durations: number[];
}

/** Makes a {@link CallFeed}. */
export function createCallFeed(options: CallFeedOptions = {}): CallFeed {
  const keep = options.keep ?? 200;
  const span = options.minutes ?? 30;
  const now = options.now ?? Date.now;
  const listeners = new Set<(event: CallFeedEvent) => void>();
  const calls: CallEntry[] = [];
  const minutes: Minute[] = [];
  let nextId = 1;
  let total = 0;
  let errors = 0;
  let installed = false;

  const emit = (event: CallFeedEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure (a closed stream) is its own; the call goes on.
      }
    }
  };

  const replace = (entry: CallEntry): void => {
    const at = calls.findIndex((c) => c.id === entry.id);
    if (at >= 0) calls[at] = entry;
  };

  const minuteOf = (ms: number): Minute => {
    const t = Math.floor(ms / 60_000) * 60;
    let last = minutes.at(-1);
    if (last?.t !== t) {
      last = { t, calls: 0, errors: 0, durations: [] };
      minutes.push(last);
      while (minutes.length > span) minutes.shift();
    }
    return last;
  };

  const begin = (tool: string) => {
    let entry: CallEntry = { id: nextId++, tool, startedAt: now() };
    calls.push(entry);
    while (calls.length > keep) calls.shift();
    emit({ type: 'call_start', call: entry });
    return {
      progress(event: ProgressEvent): void {
        entry = { ...entry, progress: { ...event } };
        replace(entry);
        emit({ type: 'call_progress', call: entry });
      },
      waiting(waiting: boolean): void {
        if (entry.outcome !== undefined || (entry.waiting !== undefined) === waiting) return;
        const { waiting: _, ...rest } = entry;
        entry = waiting ? { ...rest, waiting: 'approval' } : rest;
        replace(entry);
        emit({ type: 'call_progress', call: entry });
      },
      end(outcome: CallOutcome): void {
        const ended = now();
        const { waiting: _, ...rest } = entry;
        entry = { ...rest, durationMs: ended - entry.startedAt, outcome };
        replace(entry);
        const minute = minuteOf(ended);
        minute.calls++;
        total++;
        if (outcome !== 'ok' && outcome !== HANDED_ON_OUTCOME) {
          minute.errors++;
          errors++;
        }
        if (minute.durations.length < SAMPLES_PER_MINUTE)
          minute.durations.push(entry.durationMs ?? 0);
        emit({ type: 'call_end', call: entry });
      },
    };
  };

  const errorOutcome = (error: unknown): CallOutcome =>
    ToolError.isInstance(error) ? error.code : 'internal';

  return {
    middleware: (next) => {
      installed = true;
      return async (call) => {
        const record = begin(call.toolId);
        const onProgress = call.onProgress;
        try {
          const onApproval = call.onApproval;
          const result = await next({
            ...call,
            onProgress: (event) => {
              record.progress(event);
              onProgress?.(event);
            },
            // A refused call's end says so itself: only a grant ends the wait before it.
            onApproval: (step) => {
              if (step.type !== 'refused') record.waiting(step.type === 'asked');
              onApproval?.(step);
            },
          });
          record.end(isErrorResult(result) ? 'is_error' : 'ok');
          return result;
        } catch (error) {
          record.end(handedOn(call.signal) ? HANDED_ON_OUTCOME : errorOutcome(error));
          throw error;
        }
      };
    },
    get installed() {
      return installed;
    },
    async observe(tool, invoke, outcomeOf) {
      const record = begin(tool);
      try {
        const value = await invoke((event) => {
          record.progress(event);
        });
        record.end(outcomeOf?.(value) ?? 'ok');
        return value;
      } catch (error) {
        record.end(errorOutcome(error));
        throw error;
      }
    },
    recent: () => [...calls],
    stats() {
      // Minutes without calls are shown as zero, so the charts' time axis has no gaps.
      const end = Math.floor(now() / 60_000) * 60;
      const byT = new Map(minutes.map((m) => [m.t, m]));
      const out: MinuteStats[] = [];
      for (let t = end - (span - 1) * 60; t <= end; t += 60) {
        const m = byT.get(t);
        const sorted = m === undefined ? [] : [...m.durations].sort((a, b) => a - b);
        out.push({
          t,
          calls: m?.calls ?? 0,
          errors: m?.errors ?? 0,
          p50: percentile(sorted, 0.5),
          p95: percentile(sorted, 0.95),
        });
      }
      return { minutes: out, total, errors };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** An MCP result that says the tool failed. */
function isErrorResult(result: unknown): boolean {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  );
}

/** The `q` quantile of ascending `sorted` (nearest rank); null when empty. */
function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? null;
}
