import { availableParallelism } from 'node:os';
import { whenAborted } from '@toolplane/toolmodel';
import { ANSWERS, MESSAGES, nextMessage, spareCore, SpinPolicy, STOP, spinFor } from './channel.js';
import { unpackCalls } from './prelude.js';
import { STOP_CANCELLED, STOP_TIMEOUT } from './protocol.js';
import type {
  ApiTool,
  HostCall,
  LogEntry,
  Outcome,
  SandboxLimits,
  WorkerMessage,
} from './protocol.js';
import type { SandboxPool, SandboxWorker } from './pool.js';

// How long a stopped run's worker has to report its end before it is ended itself. The
// interrupt handler runs every few thousand QuickJS instructions, so a healthy worker answers in
// well under a millisecond; only a wedged one reaches this.
const GRACE_MS = 1_000;
// After posting answers the main thread may spin for the worker's next message (channel.ts):
// twice the typical recent wait, at least 50 µs, and never past 200 µs a wait (a program that
// computes longer between calls is slept through), and at most TURN_SPIN_MS in all before it
// lets the event loop run again, so that a run of quick calls never holds other sessions longer.
const SPIN_BOUNDS = { minMs: 0.05, maxMs: 0.2 } as const;
const TURN_SPIN_MS = 1;
const LOST = 'the sandbox worker ended before the run did; the next run gets a new one';

/** When the current event-loop turn's spinning began; reset once the loop has turned. */
let turnStarted: number | undefined;

/** How long (ms) this turn may still spin, starting its clock on the first spin of a turn. */
function turnSpinLeft(): number {
  const now = performance.now();
  if (turnStarted === undefined) {
    turnStarted = now;
    setImmediate(() => {
      turnStarted = undefined;
    });
    return TURN_SPIN_MS;
  }
  return TURN_SPIN_MS - (now - turnStarted);
}

/**
 * The most a run's worker may spin for one wait: up to 1 ms (through a quick upstream call)
 * while this run, the `others` already running and the main thread each have a core, else a
 * local tool's 50 µs, so that runs at once never spin on every core for slow answers.
 */
export function workerSpinMs(others: number): number {
  return others + 2 <= availableParallelism() ? 1 : 0.05;
}

/** A tool call or search the program made: what the main thread must answer. */
export type SandboxCall = HostCall;

/** The answer to a {@link SandboxCall}: JSON text of the value, or of `{ message, code }`. */
export interface CallAnswer {
  readonly ok: boolean;
  readonly json: string;
}

/** What one run in the sandbox ended with. */
export interface Ended {
  readonly outcome:
    | Outcome
    | {
        readonly ok: false;
        readonly code: 'timeout' | 'cancelled';
        /** Cancelled because the pool was closed while the run ran. */
        readonly closed?: true;
      };
  readonly logs: readonly LogEntry[];
  /** IDs of tool calls the program made that never left the sandbox, as the run ended first. */
  readonly unsent?: readonly string[];
  /** How long the run queued for a free worker, in ms: part of its `timeoutMs`. */
  readonly waitedMs: number;
}

/** One run's request to {@link execute}. */
export interface ExecuteRequest {
  readonly program: string;
  readonly tools: readonly ApiTool[];
  readonly limits: SandboxLimits;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onCall: (call: SandboxCall, signal: AbortSignal) => Promise<CallAnswer>;
  /** Whether both threads may spin for quick answers (default: when a core is to spare). */
  readonly spin?: boolean;
}

let runs = 0;

/**
 * A worker for `request`, queued for at most its `timeoutMs` (the queue is part of the run's
 * time: a busy pool cannot hold a run past its bound); `undefined` when that time ran out first.
 *
 * @throws {ToolError} `cancelled` when the caller's signal aborts the wait.
 */
async function acquireWithin(
  pool: SandboxPool,
  request: ExecuteRequest,
): Promise<{ worker: SandboxWorker; queuedMs: number } | undefined> {
  const wait = new AbortController();
  const late = new AbortController();
  const timer = setTimeout(() => {
    late.abort();
    wait.abort();
  }, request.timeoutMs);
  const stopListening =
    request.signal === undefined
      ? undefined
      : whenAborted(request.signal, () => {
          wait.abort();
        });
  try {
    return await pool.acquire(wait.signal);
  } catch (error) {
    if (late.signal.aborted) return undefined;
    throw error;
  } finally {
    clearTimeout(timer);
    stopListening?.();
  }
}

/**
 * Runs one program on a worker of the pool and resolves with how it ended. Tool calls are
 * answered by `onCall` with a signal that aborts once the run is over (so calls still in flight
 * are cancelled upstream). The timeout and the caller's signal stop the program through the
 * worker's shared flag, which works even while it spins in a loop.
 */
export async function execute(pool: SandboxPool, request: ExecuteRequest): Promise<Ended> {
  const acquired = await acquireWithin(pool, request);
  if (acquired === undefined) {
    return { outcome: { ok: false, code: 'timeout' }, logs: [], waitedMs: request.timeoutMs };
  }
  const { worker, queuedMs: waitedMs } = acquired;
  // The time limit counts from the call: a run that queued for a worker has what is left.
  const timeoutMs = Math.max(1, request.timeoutMs - waitedMs);
  const run = ++runs;
  const calls = new AbortController();
  const { control } = worker;
  const spin = new SpinPolicy(SPIN_BOUNDS);
  const spinning = request.spin ?? spareCore();
  Atomics.store(control, STOP, 0);
  try {
    return await new Promise<Ended>((resolve) => {
      let stopped: 'timeout' | 'cancelled' | undefined;
      let grace: NodeJS.Timeout | undefined;
      let ended = false;
      const finish = (result: Omit<Ended, 'waitedMs'>, healthy: boolean): void => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        clearTimeout(grace);
        stopListening?.();
        if (healthy) pool.release(worker);
        else pool.discard(worker);
        resolve({ ...result, waitedMs });
      };
      const stop = (reason: 'timeout' | 'cancelled'): void => {
        if (stopped !== undefined) return;
        stopped = reason;
        Atomics.store(control, STOP, reason === 'timeout' ? STOP_TIMEOUT : STOP_CANCELLED);
        // Wakes the worker if it sleeps waiting for answers; a running program sees the flag
        // through the interrupt handler.
        Atomics.notify(control, ANSWERS);
        calls.abort();
        grace = setTimeout(() => {
          finish({ outcome: { ok: false, code: reason }, logs: [] }, false);
        }, GRACE_MS);
      };
      const timer = setTimeout(() => {
        stop('timeout');
      }, timeoutMs);
      const stopListening =
        request.signal === undefined
          ? undefined
          : whenAborted(request.signal, () => {
              stop('cancelled');
            });
      const receive = (message: WorkerMessage): void => {
        if (ended || message.run !== run) return;
        if (message.kind === 'done') {
          const outcome =
            stopped === undefined ? message.outcome : { ok: false as const, code: stopped };
          // A worker whose engine failed is ended, never handed to another run.
          const unsent = message.unsent === undefined ? {} : { unsent: message.unsent };
          finish({ outcome, logs: message.logs, ...unsent }, message.retire !== true);
          return;
        }
        if (message.kind !== 'calls') return;
        // The worker has read and counted them already; its text cannot fail to read here.
        for (const call of unpackCalls(message.calls) ?? []) {
          void request.onCall(call, calls.signal).then((answer) => {
            answered(call.call, answer);
          });
        }
      };
      worker.listener = (message) => {
        if (message === undefined) {
          // The thread ended without reporting the run's end. A run already stopped ends as it
          // was stopped, and one whose pool was closed as cancelled; otherwise the run is lost,
          // with a message of ours (the thread's own error may be the engine's raw text).
          const outcome =
            stopped !== undefined
              ? { ok: false as const, code: stopped }
              : pool.closed
                ? { ok: false as const, code: 'cancelled' as const, closed: true as const }
                : { ok: false as const, code: 'internal' as const, message: LOST };
          finish({ outcome, logs: [] }, true);
          return;
        }
        // Came through the event loop without a spin before it: this wait counts (one that
        // followed a spin was counted when the spin ended).
        if (posted !== 0) spin.record(performance.now() - posted);
        posted = 0;
        receive(message);
      };
      // Answers ready in the same turn (the calls of a `Promise.all`, say) go in one message,
      // sent once the microtasks that settle them have run: one wake-up of the worker for all.
      let batch = '';
      let count = 0;
      let posted = 0;
      const flush = (): void => {
        const answers = `[${batch}]`;
        const settled = count;
        batch = '';
        count = 0;
        if (ended || stopped !== undefined || worker.dead) return;
        const seen = Atomics.load(control, MESSAGES);
        worker.channel.postMessage({ kind: 'settle', run, count: settled, batch: answers });
        Atomics.add(control, ANSWERS, 1);
        Atomics.notify(control, ANSWERS);
        posted = performance.now();
        // A worker that answered quickly last time is likely to call again at once: wait for
        // it here, briefly, rather than let it wake this thread through the event loop.
        const wanted = spinning ? spin.budget() : 0;
        const budget = wanted > 0 ? Math.min(wanted, turnSpinLeft()) : 0;
        if (budget <= 0) return;
        const moved = spinFor(control, MESSAGES, seen, budget);
        spin.record(performance.now() - posted);
        posted = 0;
        if (!moved) return;
        for (;;) {
          const message = nextMessage(worker.channel) as WorkerMessage | undefined;
          if (message === undefined) return;
          receive(message);
        }
      };
      const answered = (call: number, { ok, json }: CallAnswer): void => {
        batch += `${count === 0 ? '' : ','}[${String(call)},${ok ? '1' : '0'},${json}]`;
        if (++count === 1) queueMicrotask(flush);
      };
      if (request.signal?.aborted === true) {
        // Nothing runs yet, so there is no end for the worker to report.
        finish({ outcome: { ok: false, code: 'cancelled' }, logs: [] }, true);
        return;
      }
      worker.post({
        kind: 'run',
        run,
        program: request.program,
        tools: request.tools,
        limits: request.limits,
        spinMs: spinning ? workerSpinMs(pool.busy - 1) : 0,
      });
    });
  } finally {
    calls.abort();
  }
}
