// The fast path between a run's worker thread and the main thread. A sequential tool call is
// one round trip between the two threads, and what a round trip costs here is mostly waking a
// thread that went to sleep (a futex or eventfd write, and on a shared virtual machine an
// interrupt to a halted core), not the bytes that cross. So:
//
// - the worker, with calls in flight, blocks in `Atomics.wait` on the control block instead of
//   returning to its event loop, and reads the answers with `receiveMessageOnPort`: no event
//   loop turn, no `message` event, one futex wake (see worker.ts);
// - either side, when the other answered quickly last time, first spins briefly on the control
//   block before it sleeps, so a call answered at once (a local tool) crosses without any
//   thread going to sleep. The spin is bounded per call and adaptive (it stops once answers
//   come slower than the bound), and the main thread's is also bounded per event-loop turn,
//   so no run can hold the main thread: other sessions are answered at least every turn.
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

/** Whether the machine has a core to spare for a spinning thread; asked once per run. */
export function spareCore(): boolean {
  const [lastMinute = Number.POSITIVE_INFINITY] = loadavg();
  return lastMinute < availableParallelism();
}

/**
 * Whether to spin before sleeping, learned from how soon the other side answered: spin while
 * answers come within the bound; after a slow one, stop spinning (it would only burn a core)
 * but try again every `probeEvery` waits, so a run that turns fast again is noticed.
 */
export class SpinPolicy {
  private slow = 0;

  constructor(
    readonly limitMs: number,
    private readonly probeEvery = 16,
  ) {}

  /** Whether the next wait should spin first. */
  shouldSpin(): boolean {
    return this.slow === 0 || this.slow % this.probeEvery === 0;
  }

  /** How long the last wait took, spun or slept. */
  record(waitedMs: number): void {
    this.slow = waitedMs <= this.limitMs ? 0 : this.slow + 1;
  }
}
