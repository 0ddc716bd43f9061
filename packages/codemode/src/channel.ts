// The fast path between a run's worker thread and the main thread. A sequential tool call is
// one round trip between the two threads, and what a round trip costs here is mostly waking a
// thread that went to sleep (a futex or eventfd write, and on a shared virtual machine an
// interrupt to a halted core), not the bytes that cross. So:
//
// - the worker, with calls in flight, blocks in `Atomics.wait` on the control block instead of
//   returning to its event loop, and reads the answers with `receiveMessageOnPort`: no event
//   loop turn, no `message` event, one futex wake (see worker.ts);
// - either side, when the other's recent answers came quickly, first spins on the control block
//   before it sleeps, for about twice the typical recent wait (SpinPolicy): a call answered at
//   once (a local tool) crosses without any thread going to sleep, and the worker stays awake
//   through an upstream call that answers within a few hundred µs, so the main thread need not
//   wake it. The spin is bounded per wait (1 ms on the worker, 200 µs on the main thread) and
//   the main thread's also per event-loop turn (1 ms), so no run can hold the main thread:
//   other sessions are answered at least every turn.
// - neither side spins on a machine without a spare core (load average at or above the core
//   count): there a spinning thread holds the core the other thread needs to answer, and a round
//   trip that takes ~15 µs asleep took ~900 µs spinning (bench/RESULTS.md).

import { availableParallelism, loadavg } from 'node:os';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/** Index in the control block: why the run must stop (0: keep running). */
export const STOP = 0;
/** Index in the control block: bumped by the main thread after it posts answers. */
export const ANSWERS = 1;
/** Index in the control block: bumped by the worker after it posts calls or its end. */
export const MESSAGES = 2;
/** Bytes of the control block shared by a worker and the main thread. */
export const CONTROL_BYTES = 16;

/**
 * Spins while `control[index]` is `seen` and no stop is asked, for at most `limitMs`.
 * Returns whether it changed (or a stop was asked) within the bound.
 */
export function spinFor(
  control: Int32Array,
  index: number,
  seen: number,
  limitMs: number,
): boolean {
  const until = performance.now() + limitMs;
  for (;;) {
    if (Atomics.load(control, index) !== seen || Atomics.load(control, STOP) !== 0) return true;
    if (performance.now() >= until) return false;
  }
}

/** The next message waiting on `port`, taken without the event loop; `undefined` when none. */
export function nextMessage(port: MessagePort): unknown {
  const received: { message: unknown } | undefined = receiveMessageOnPort(port);
  return received?.message;
}

/**
 * Environment variable that overrides the load rule of {@link spareCore}, for benchmarks only:
 * `on` lets both threads spin whatever the load, `off` never. A benchmark on a loaded machine
 * sets it to compare the spinning path with the sleeping one in the same run.
 */
export const SPIN_ENV = 'TOOLPLANE_CODEMODE_SPIN';

/** Whether the machine has a core to spare for a spinning thread; asked once per run. */
export function spareCore(): boolean {
  const forced = process.env[SPIN_ENV];
  if (forced === 'on') return true;
  if (forced === 'off') return false;
  const [lastMinute = Number.POSITIVE_INFINITY] = loadavg();
  return lastMinute < availableParallelism();
}

/** How long one side of a run may spin for the other's answer: see {@link SpinPolicy}. */
export interface SpinBounds {
  /** The spin of a probe, and the least a spinning wait gets (ms). */
  readonly minMs: number;
  /** The most one wait spins (ms): answers typically slower than this are slept through. */
  readonly maxMs: number;
  /** The spin as a multiple of the typical recent wait (default 2), to catch its tail too. */
  readonly factor?: number;
  /** While answers are slow, spin briefly every this many waits (default 16). */
  readonly probeEvery?: number;
}

// The recent waits the typical one is taken from: the median of eight, so that one slow wait
// (a garbage collection, the main thread's turn yielding to its event loop) does not stop the
// spin, yet a run whose answers turn slow stops spinning within a few calls.
const WINDOW = 8;

/**
 * How long to spin before sleeping, learned from how soon the other side answered: the typical
 * (median) recent wait times `factor`, at least `minMs`, while that stays within `maxMs`. So a
 * local tool's answer (micro-seconds) gets a short spin, and an upstream that answers within a
 * few hundred µs keeps the waiting thread awake through the whole call, which saves the wake-up
 * (tens of µs of wall and CPU on both threads) at the price of the spin's CPU. Answers slower
 * than `maxMs` are slept through, with a probe every `probeEvery` waits so that a run that
 * turns fast again is noticed.
 */
export class SpinPolicy {
  private readonly recent = new Float64Array(WINDOW);
  private readonly sorted = new Float64Array(WINDOW);
  private count = 0;
  private slow = 0;
  private next: number;
  private readonly factor: number;
  private readonly probeEvery: number;

  constructor(private readonly bounds: SpinBounds) {
    this.factor = bounds.factor ?? 2;
    this.probeEvery = bounds.probeEvery ?? 16;
    this.next = bounds.minMs;
  }

  /** How long (ms) the next wait should spin before it sleeps; 0: sleep at once. */
  budget(): number {
    return this.next;
  }

  /** How long the last wait took, spun or slept. */
  record(waitedMs: number): void {
    this.recent[this.count % WINDOW] = waitedMs;
    this.count++;
    const filled = Math.min(this.count, WINDOW);
    // An insertion sort of at most eight numbers in place: no allocation, a few dozen
    // comparisons, where a typed array's `sort` costs ~0.5 µs a wait on each thread.
    const { recent, sorted } = this;
    for (let i = 0; i < filled; i++) {
      const value = recent[i] as number;
      let j = i;
      while (j > 0 && (sorted[j - 1] as number) > value) {
        sorted[j] = sorted[j - 1] as number;
        j--;
      }
      sorted[j] = value;
    }
    const typical = sorted[(filled - 1) >> 1] ?? waitedMs;
    const { minMs, maxMs } = this.bounds;
    const wanted = Math.max(minMs, typical * this.factor);
    if (wanted <= maxMs) {
      this.slow = 0;
      this.next = wanted;
      return;
    }
    // A probe that was answered within its spin is tried again at once, so a run that turned
    // fast spins again after a few calls rather than after a few windows of probes.
    this.slow = waitedMs <= minMs ? 0 : this.slow + 1;
    this.next = this.slow % this.probeEvery === 0 ? minMs : 0;
  }
}
