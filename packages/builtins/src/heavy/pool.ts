import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { getSession, ToolError } from '@toolplane/toolkit';
import {
  checkDuration,
  countOr,
  optionKeys,
  refuseUnknownOptions,
  whenAborted,
} from '@toolplane/toolmodel';
import { workerModule } from '@toolplane/toolmodel/source-entry';
import type { Piscina } from 'piscina';
import type { HeavyOutcome, HeavyTask, StartedTask } from './worker.js';

/** How the heavy builtins share their worker threads; every field has a default. */
export interface PoolOptions {
  /** Worker threads (default: the cores, at least 2 and at most 4); started on demand. */
  readonly threads?: number;
  /** Threads one caller may hold at once (default: half the threads, at least 1). */
  readonly perCaller?: number;
  /** Tasks waiting for a thread, all callers together, before new ones are refused (default 64). */
  readonly queue?: number;
  /** Tasks one caller may have waiting before its new ones are refused (default 8). */
  readonly perCallerQueue?: number;
  /**
   * Running time one task may take before its thread is ended, in ms (default 5,000); counted
   * from when the task begins to run on its thread, not while it waits for one or the thread
   * starts.
   */
  readonly timeoutMs?: number;
  /** Heap one thread may use before it is ended, in MB (default 256). */
  readonly heapMb?: number;
  /**
   * Who is calling, for the per-caller shares. Default: the verified OAuth subject of the
   * session, else the HTTP request's source (`Session.source`: an address, an IPv6 /64, or
   * behind trusted proxies the forwarded client), else the MCP session ID, else one shared
   * "local" caller.
   */
  readonly callerOf?: () => string;
}

/** The pool's settings, defaults applied. */
export type PoolSettings = Required<Omit<PoolOptions, 'callerOf'>>;

/** A `rate_limited` refusal of the worker pool, with when a retry may find room. */
export class PoolBusyError extends ToolError {
  override name = 'PoolBusyError';
  /** Milliseconds after which a retry may find room (a `Retry-After`, in ms). */
  readonly retryAfterMs: number;

  constructor(message: string, retryAfterMs: number) {
    super('rate_limited', `${message}; retry in ${String(Math.ceil(retryAfterMs / 1000))} s`);
    this.retryAfterMs = retryAfterMs;
  }
}

const POOL_KEYS = optionKeys<PoolOptions>({
  threads: true,
  perCaller: true,
  queue: true,
  perCallerQueue: true,
  timeoutMs: true,
  heapMb: true,
  callerOf: true,
});

/** The settings `options` ask for, checked, with defaults for what they leave out. */
export function poolSettings(options: PoolOptions = {}): PoolSettings {
  refuseUnknownOptions(options, POOL_KEYS, 'builtinTools({ pool })');
  // Left out (`undefined`) takes the default; anything else, `null` included, is checked.
  const count = (name: keyof PoolSettings, fallback: number, min = 1): number =>
    countOr(options[name], fallback, `builtinTools({ pool: { ${name} } })`, { min });
  const threads = count('threads', Math.max(2, Math.min(4, availableParallelism())));
  const settings: PoolSettings = {
    threads,
    perCaller: count('perCaller', Math.max(1, Math.floor(threads / 2))),
    queue: count('queue', 64, 0),
    perCallerQueue: count('perCallerQueue', 8, 0),
    timeoutMs: count('timeoutMs', 5_000),
    heapMb: count('heapMb', 256),
  };
  // A timer fires a longer one at once: every call would time out as it began.
  checkDuration(settings.timeoutMs, 'builtinTools({ pool: { timeoutMs } })');
  return settings;
}

function defaultCaller(): string {
  const session = getSession();
  const subject = session.auth?.subject;
  if (subject !== undefined) return `sub:${subject}`;
  // Many sessions of one client are one caller: its HTTP source, as the gateway counts them.
  if (session.source !== undefined) return `source:${session.source}`;
  return session.id === undefined ? 'local' : `session:${session.id}`;
}

/** The worker's module: built JavaScript, or from sources the test run's bundle or tsx. */
const entry = workerModule(import.meta.url, './worker');

/** A task waiting for a thread. */
interface Waiting {
  readonly task: HeavyTask;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (outcome: Extract<HeavyOutcome, { ok: true }>) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
  /** Stops listening to `signal`, once the task is queued. */
  stopWaiting?: () => void;
}

/**
 * The heavy builtins' worker threads, shared fairly: a caller holds at most `perCaller` threads
 * and has at most `perCallerQueue` tasks waiting, callers with waiting tasks take turns for a
 * free thread, and a task's time limit starts when it begins to run on its thread (not while it
 * is queued, nor while a new thread starts). Tasks are handed to piscina only when a thread is
 * free, so piscina's own queue stays empty.
 */
export class HeavyPool {
  readonly settings: PoolSettings;
  private readonly callerOf: () => string;
  // Piscina (~30 modules) loads with the first task: a start that never runs one never pays it.
  private workers: Promise<Piscina<StartedTask, HeavyOutcome>> | undefined;
  /** Waiting tasks per caller, in turn order: a caller served goes to the back. */
  private readonly waiting = new Map<string, Waiting[]>();
  private waitingCount = 0;
  /** Start times of the running tasks per caller. */
  private readonly running = new Map<string, number[]>();
  private runningCount = 0;

  constructor(options: PoolOptions = {}) {
    this.settings = poolSettings(options);
    this.callerOf = options.callerOf ?? defaultCaller;
  }

  /**
   * Runs `task` on a worker thread, so that however long or large it grows it holds no session's
   * event loop: past the time or memory limit its thread is ended and the call fails.
   *
   * @throws {ToolError} `cancelled` when `signal` aborts, `timeout` past the running-time
   * limit, `invalid_argument` past the memory limit, `invalid_argument` or
   * `resource_exhausted` when the task itself refuses (its message), `rate_limited` (a
   * {@link PoolBusyError}) when the caller's or the pool's queue is full.
   */
  run(task: HeavyTask, signal?: AbortSignal): Promise<Extract<HeavyOutcome, { ok: true }>> {
    if (signal?.aborted === true) {
      return Promise.reject(new ToolError('cancelled', `${task.kind} was cancelled`));
    }
    const caller = this.callerOf();
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        task,
        signal,
        resolve,
        reject,
        onAbort: () => {
          if (this.unqueue(caller, entry)) {
            reject(new ToolError('cancelled', `${task.kind} was cancelled`));
          }
        },
      };
      const mine = this.waiting.get(caller) ?? [];
      mine.push(entry);
      this.waiting.set(caller, mine);
      this.waitingCount++;
      this.pump();
      // Only a task that has to wait counts against the queue bounds.
      const refusal = mine.includes(entry)
        ? this.refusal(caller, task.kind, mine.length)
        : undefined;
      if (refusal !== undefined) {
        this.unqueue(caller, entry);
        reject(refusal);
        return;
      }
      if (signal !== undefined) entry.stopWaiting = whenAborted(signal, entry.onAbort);
    });
  }

  /** Why a task of `caller` that has to wait, `waiting`-th in its queue, is refused, if it is. */
  private refusal(caller: string, kind: string, waiting: number): PoolBusyError | undefined {
    const { queue, perCallerQueue } = this.settings;
    if (waiting > perCallerQueue) {
      return new PoolBusyError(
        `${String(waiting - 1)} ${kind} calls of this caller are already waiting for a worker, the most allowed (${String(perCallerQueue)})`,
        this.retryAfter(caller),
      );
    }
    if (this.waitingCount > queue) {
      return new PoolBusyError(
        `${String(this.waitingCount - 1)} builtin calls are already waiting for a worker, the most allowed (${String(queue)})`,
        this.retryAfter(undefined),
      );
    }
    return undefined;
  }

  /** Takes `entry` out of `caller`'s queue; false when it was not there (it has started). */
  private unqueue(caller: string, entry: Waiting): boolean {
    const list = this.waiting.get(caller);
    const at = list?.indexOf(entry) ?? -1;
    if (list === undefined || at < 0) return false;
    list.splice(at, 1);
    this.waitingCount--;
    if (list.length === 0) this.waiting.delete(caller);
    return true;
  }

  /** Ends the worker threads (at once: the tasks still running fail); waiting tasks are cancelled. */
  async close(): Promise<void> {
    for (const list of this.waiting.values()) {
      for (const entry of list) {
        entry.stopWaiting?.();
        entry.reject(new ToolError('cancelled', `${entry.task.kind} was cancelled: closing`));
      }
    }
    this.waiting.clear();
    this.waitingCount = 0;
    const current = this.workers;
    this.workers = undefined;
    await (await current)?.destroy();
  }

  /** Starts waiting tasks while threads are free, taking callers in turn. */
  private pump(): void {
    while (this.runningCount < this.settings.threads) {
      const next = this.nextCaller();
      if (next === undefined) return;
      const [caller, list] = next;
      const entry = list.shift();
      if (entry === undefined) return;
      this.waitingCount--;
      // To the back of the turn order (or out of it when nothing of it waits).
      this.waiting.delete(caller);
      if (list.length > 0) this.waiting.set(caller, list);
      entry.stopWaiting?.();
      this.start(caller, entry);
    }
  }

  private nextCaller(): [string, Waiting[]] | undefined {
    for (const [caller, list] of this.waiting) {
      if ((this.running.get(caller)?.length ?? 0) < this.settings.perCaller) return [caller, list];
    }
    return undefined;
  }

  private start(caller: string, entry: Waiting): void {
    const startedAt = Date.now();
    const starts = this.running.get(caller) ?? [];
    starts.push(startedAt);
    this.running.set(caller, starts);
    this.runningCount++;
    // The limit is the task's running time: its clock starts when the thread says the task has
    // begun, not before piscina loads, a thread starts and the worker's modules load (a first
    // task on a busy machine took seconds of that).
    const limit = new AbortController();
    const timeout = limit.signal;
    const signal = entry.signal === undefined ? timeout : AbortSignal.any([entry.signal, timeout]);
    const { port1: begun, port2: started } = new MessageChannel();
    let clock: NodeJS.Timeout | undefined;
    begun.once('message', () => {
      clock = setTimeout(() => {
        limit.abort();
      }, this.settings.timeoutMs).unref();
    });
    begun.unref();
    this.pool()
      .then((workers) =>
        workers.run({ ...entry.task, started }, { signal, transferList: [started] }),
      )
      .then(
        (outcome) => {
          if (outcome.ok) entry.resolve(outcome);
          else {
            const code = 'code' in outcome ? outcome.code : undefined;
            entry.reject(new ToolError(code ?? 'invalid_argument', outcome.message));
          }
        },
        (error: unknown) => {
          entry.reject(this.failure(entry.task.kind, error, entry.signal, timeout));
        },
      )
      .finally(() => {
        clearTimeout(clock);
        begun.close();
        starts.splice(starts.indexOf(startedAt), 1);
        if (starts.length === 0) this.running.delete(caller);
        this.runningCount--;
        this.pump();
      });
  }

  private pool(): Promise<Piscina<StartedTask, HeavyOutcome>> {
    const { threads, heapMb } = this.settings;
    this.workers ??= import('piscina').then(({ Piscina: Pool }) => {
      const workers = new Pool<StartedTask, HeavyOutcome>({
        filename: entry.filename,
        minThreads: 0,
        maxThreads: threads,
        idleTimeout: 30_000,
        resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32 },
        execArgv: [...entry.execArgv],
      });
      // Piscina emits 'error' for what no task waits on: a result arriving for a task its time
      // limit has just stopped, a worker failing with nothing queued, a slow close. Unheard,
      // that event would be an uncaught exception and end the whole gateway; every task already
      // gets its own answer (its result, its timeout or its worker's failure).
      workers.on('error', () => undefined);
      return workers;
    });
    return this.workers;
  }

  /** When the earliest of `caller`'s running tasks (or of anyone's) must have ended, in ms. */
  private retryAfter(caller: string | undefined): number {
    const own = caller === undefined ? undefined : this.running.get(caller);
    const starts = own ?? [...this.running.values()].flat();
    const oldest = Math.min(...starts);
    if (!Number.isFinite(oldest)) return this.settings.timeoutMs;
    return Math.max(1, oldest + this.settings.timeoutMs - Date.now());
  }

  private failure(
    kind: string,
    error: unknown,
    signal: AbortSignal | undefined,
    timeout: AbortSignal,
  ): ToolError {
    if (signal?.aborted === true) {
      return new ToolError('cancelled', `${kind} was cancelled`, { cause: error });
    }
    if (timeout.aborted) {
      return new ToolError(
        'timeout',
        `${kind} ran longer than ${String(this.settings.timeoutMs / 1000)} s and was stopped: ask for less`,
        { cause: error },
      );
    }
    if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new ToolError(
        'invalid_argument',
        `${kind} needed more than ${String(this.settings.heapMb)} MB of memory and was stopped: ask for less`,
        { cause: error },
      );
    }
    return new ToolError(
      'internal',
      `${kind} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
