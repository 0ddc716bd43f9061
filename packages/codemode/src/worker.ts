// The worker thread that runs code-mode programs in QuickJS (WebAssembly), one run at a time,
// each in a fresh runtime and context, made ahead while the worker idles after a run. It
// never calls a tool itself: tool calls and searches go to the main thread as messages, and
// their answers come back as JSON text. While calls are in flight the worker blocks on the
// shared control block rather than in its event loop (channel.ts). The main thread stops a run
// through the same block, which the interrupt handler reads even inside a tight loop.

import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { ANSWERS, MESSAGES, nextMessage, SpinPolicy, STOP, spinFor } from './channel.js';
import { Engine } from './engine.js';
import type { HostMessage, Outcome, WorkerMessage } from './protocol.js';
import type { WasmModule } from './quickjs-wasm.js';
import { Run, type Batch, type RunLink } from './sandbox-run.js';

const port = parentPort;
if (port === null) throw new Error('the code-mode sandbox runs as a worker thread');
const {
  control: controlBuffer,
  channel,
  memoryLimitBytes,
} = workerData as {
  control: SharedArrayBuffer;
  channel: MessagePort;
  memoryLimitBytes: number;
};
const control = new Int32Array(controlBuffer);

// The compiled QuickJS module comes as the worker's first message (quickjs-wasm.ts).
const quickjs = await new Promise<WasmModule>((resolve) => {
  const hear = (message: HostMessage): void => {
    if (message.kind !== 'engine') return;
    port.off('message', hear);
    resolve(message.module);
  };
  port.on('message', hear);
});
const engine = await Engine.load(quickjs, memoryLimitBytes);

// How long the worker spins for answers before it sleeps (channel.ts): twice the typical recent
// wait, so an upstream that answers within a few hundred µs is waited for awake, up to 1 ms a
// wait; slower ones are slept through. Its CPU is the worker's own core, and it never spins on a
// machine without one to spare, nor past the run's `spinMs` (execute.ts).
const SPIN_BOUNDS = { minMs: 0.05, maxMs: 1 } as const;
const spin = new SpinPolicy(SPIN_BOUNDS);

const link: RunLink = {
  control,
  engine,
  // Posts on the channel, then bumps `MESSAGES`, so a spinning main thread sees it at once.
  send(message) {
    channel.postMessage(message);
    Atomics.add(control, MESSAGES, 1);
  },
};

port.postMessage({ kind: 'ready', run: 0 } satisfies WorkerMessage);
engine.prepare();

/**
 * Blocks until the main thread has posted answers (or asked a stop), and returns this run's
 * answers with the `ANSWERS` count the next wait compares against. It spins first for as long as
 * the recent answers suggest (SpinPolicy, capped by the run), then sleeps in `Atomics.wait`; the
 * timeout only re-checks the stop flag, the notify is what wakes it.
 *
 * The count is read before the channel is drained, never after: the main thread posts a batch
 * and then bumps the count, so a batch posted after this read bumps it past the returned value
 * and wakes the next wait, while one posted before it is already in the channel for this drain.
 * (Read once the answers were settled, the count would take in a batch posted meanwhile, left in
 * the channel, and the next wait would sleep on it until the run's timeout.)
 */
function awaitAnswers(run: Run, seen: number): { answers: Batch[]; seen: number } {
  const started = performance.now();
  // A wait the run's bound cannot cover is slept through from the start, not spun in vain.
  const wanted = spin.budget();
  const budget = wanted <= run.spinMs ? wanted : 0;
  if (budget === 0 || !spinFor(control, ANSWERS, seen, budget)) {
    while (Atomics.load(control, ANSWERS) === seen && Atomics.load(control, STOP) === 0) {
      Atomics.wait(control, ANSWERS, seen, 1_000);
    }
  }
  spin.record(performance.now() - started);
  const next = Atomics.load(control, ANSWERS);
  const answers: Batch[] = [];
  for (;;) {
    const message = nextMessage(channel) as HostMessage | undefined;
    if (message === undefined) return { answers, seen: next };
    // Answers of an earlier run that ended before they came are dropped here.
    if (message.kind === 'settle' && message.run === run.id) answers.push(message);
  }
}

/** `work`'s outcome, or the engine's failure when a call into it for `run` threw. */
function guarded(run: Run, work: () => Outcome | undefined): Outcome | undefined {
  try {
    return work();
  } catch (error) {
    return run.engineFailed(error);
  }
}

/** Runs `run` to its end: pump, send the calls, wait for their answers, settle, again. */
function drive(run: Run): void {
  // Read before the first calls go out; afterwards each wait hands the next its count.
  let seen = Atomics.load(control, ANSWERS);
  for (;;) {
    const outcome = guarded(run, () => run.pump());
    if (outcome !== undefined) {
      run.end(outcome);
      return;
    }
    run.flush();
    const waited = awaitAnswers(run, seen);
    seen = waited.seen;
    const stopped = run.stopped();
    if (stopped !== undefined) {
      run.end(stopped);
      return;
    }
    // Every answer first, then one pump: the program resumes once for all of them.
    const failed = guarded(run, () => {
      for (const answered of waited.answers) run.settle(answered);
      return undefined;
    });
    if (failed !== undefined) {
      run.end(failed);
      return;
    }
  }
}

const BROKEN = 'the sandbox engine failed in an earlier run; its worker is replaced';

/** Ends run `id` before it started, with `outcome`, and has the worker retired. */
function refuse(id: number, outcome: Outcome): void {
  link.send({ kind: 'done', run: id, outcome, logs: [], retire: true });
}

port.on('message', (message: HostMessage) => {
  if (message.kind !== 'run') return;
  if (engine.broken) {
    refuse(message.run, { ok: false, code: 'internal', message: BROKEN });
    return;
  }
  let run: Run;
  try {
    run = new Run(message.run, message.limits, message.spinMs, link);
  } catch (error) {
    refuse(message.run, engine.failed(error));
    return;
  }
  const failed = guarded(run, () => run.start(message.program, JSON.stringify(message.tools)));
  if (failed !== undefined) {
    run.end(failed);
    return;
  }
  drive(run);
});
