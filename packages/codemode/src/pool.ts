import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { ToolError, whenAborted } from '@toolplane/toolmodel';
import { startWorker, workerModule } from '@toolplane/toolmodel/source-entry';
import { CONTROL_BYTES } from './channel.js';
import type { HostMessage, SandboxLimits, WorkerMessage } from './protocol.js';
import { quickjsModule } from './quickjs-wasm.js';

// Why a worker thread: QuickJS runs synchronously, and an interrupted QuickJS run cannot be
// resumed, so on the main thread a `while (true) {}` would hold the event loop until its timeout.
// In a worker it holds only that worker; the main thread keeps answering everyone else, and can
// end a worker that stops answering at all.

/** The worker's module: built JavaScript, or from sources the test run's bundle or tsx. */
const entry = workerModule(import.meta.url, './worker');

/** The bounds a pool's workers are made for: every run on them is held to these. */
export type WorkerSizing = Pick<SandboxLimits, 'memoryLimitBytes' | 'maxStackBytes'>;

// QuickJS bounds its own stack (`maxStackBytes`) inside the WebAssembly memory, but the compiled
// code runs on the worker thread's native stack as well, which V8 bounds on its own: the parser
// takes about 14 MB of it to reach the default 512 KiB bound on nested brackets (measured), and
// Node gives a worker 4 MB. Past V8's bound the overflow unwinds QuickJS part-way through and
// leaves it broken, so the worker's stack has room for QuickJS's bound to come first: 32 bytes a
// byte of it, over Node's 4 MB (20 MB for the default; only what is used is ever touched).
const BASE_STACK_MB = 4;
const NATIVE_BYTES_PER_STACK_BYTE = 32;

/** The native stack (MB) a worker needs for QuickJS's stack bound to be reached before V8's. */
export function stackSizeMb(maxStackBytes: number): number {
  return BASE_STACK_MB + Math.ceil((maxStackBytes * NATIVE_BYTES_PER_STACK_BYTE) / (1 << 20));
}

function spawn(control: SharedArrayBuffer, channel: MessagePort, sizing: WorkerSizing): Worker {
  const options = {
    workerData: { control, channel, memoryLimitBytes: sizing.memoryLimitBytes },
    transferList: [channel],
    resourceLimits: { stackSizeMb: stackSizeMb(sizing.maxStackBytes) },
  };
  return startWorker(entry, options);
}

/**
 * One worker thread with its QuickJS module, the control block it shares with the main thread
 * (stop, and the counters both sides spin or wait on: channel.ts) and the channel a run's calls
 * and answers cross.
 */
export class SandboxWorker {
  readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_BYTES));
  /** The main thread's end of the run channel. */
  readonly channel: MessagePort;
  readonly thread: Worker;
  /** Hears the current run's messages; the worker's end (error or exit) arrives as `undefined`. */
  listener: ((message: WorkerMessage | undefined, error?: Error) => void) | undefined;
  dead = false;
  /** Resolves once the worker has loaded QuickJS, so that no run's clock counts the start. */
  readonly ready: Promise<void>;

  constructor(sizing: WorkerSizing, onDeath: (worker: SandboxWorker) => void) {
    const { port1, port2 } = new MessageChannel();
    this.channel = port1;
    this.thread = spawn(this.control.buffer, port2, sizing);
    let started: () => void = () => undefined;
    let failed: (error: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    // Awaited by `acquire`; a worker that dies before anyone waits must not be an unhandled rejection.
    this.ready.catch(() => undefined);
    this.thread.on('message', (message: WorkerMessage) => {
      if (message.kind === 'ready') started();
    });
    this.channel.on('message', (message: WorkerMessage) => {
      this.listener?.(message);
    });
    const die = (error?: Error): void => {
      failed(
        new ToolError(
          'internal',
          `the sandbox worker failed to start: ${error?.message ?? 'it exited'}`,
          { cause: error },
        ),
      );
      if (this.dead) return;
      this.dead = true;
      onDeath(this);
      this.listener?.(undefined, error);
    };
    this.thread.on('error', die);
    this.thread.on('exit', () => {
      die();
    });
    // Compiled once for all workers, while this one's thread starts.
    quickjsModule().then(
      (module) => {
        this.post({ kind: 'engine', module });
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        die(new Error(`QuickJS did not compile: ${reason}`, { cause: error }));
        void this.thread.terminate();
      },
    );
  }

  /** Starts a run: the one message that goes through the worker's event loop. */
  post(message: HostMessage): void {
    this.thread.postMessage(message);
  }

  /** Holds the process open while a run is on this worker, or lets it exit while idle. */
  hold(held: boolean): void {
    if (held) {
      this.thread.ref();
      this.channel.ref();
    } else {
      this.thread.unref();
      this.channel.unref();
    }
  }

  /** Ends the thread and closes the channel. */
  async end(): Promise<void> {
    this.channel.close();
    await this.thread.terminate();
  }
}

/**
 * Worker threads for code-mode runs: at most `size` at once, each running one program at a time,
 * made for the memory and stack bounds of `sizing`; idle ones are kept (without holding the
 * process open) until {@link close}.
 */
export class SandboxPool {
  private readonly idle: SandboxWorker[] = [];
  private readonly all = new Set<SandboxWorker>();
  private readonly waiting: {
    resolve: (worker: SandboxWorker) => void;
    reject: (error: unknown) => void;
  }[] = [];
  #closed = false;

  constructor(
    private readonly size: number,
    private readonly sizing: WorkerSizing,
  ) {}

  /**
   * A worker for one run: an idle one, a new one, or the next one released; with how long the
   * run queued for it (while every worker held another run).
   *
   * @throws {ToolError} `cancelled` when `signal` aborts while waiting; `internal` once closed.
   */
  async acquire(
    signal: AbortSignal | undefined,
  ): Promise<{ worker: SandboxWorker; queuedMs: number }> {
    const asked = performance.now();
    // Only a run that finds every worker taken queues: a new worker's start (the pool's own
    // latency, several ms to spawn its thread) is no wait for a free sandbox.
    const queues = this.all.size >= this.size && this.idle.every((worker) => worker.dead);
    const worker = await this.take(signal);
    const queuedMs = queues ? performance.now() - asked : 0;
    try {
      await worker.ready;
    } catch (error) {
      this.discard(worker);
      throw error;
    }
    return { worker, queuedMs };
  }

  private take(signal: AbortSignal | undefined): Promise<SandboxWorker> {
    if (this.#closed) return Promise.reject(new ToolError('internal', 'code mode is closed'));
    let ready = this.idle.pop();
    while (ready?.dead === true) ready = this.idle.pop();
    if (ready !== undefined) {
      ready.hold(true);
      return Promise.resolve(ready);
    }
    if (this.all.size < this.size) {
      const worker = new SandboxWorker(this.sizing, (dead) => this.all.delete(dead));
      this.all.add(worker);
      return Promise.resolve(worker);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (worker: SandboxWorker) => {
          stopWaiting?.();
          resolve(worker);
        },
        reject,
      };
      const stopWaiting =
        signal === undefined
          ? undefined
          : whenAborted(signal, () => {
              this.waiting.splice(this.waiting.indexOf(waiter), 1);
              reject(
                new ToolError('cancelled', 'the run was cancelled while it waited for a sandbox'),
              );
            });
      this.waiting.push(waiter);
    });
  }

  /** Whether {@link close} was called: its workers ended, no run starts again. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Workers that hold a run now (started, not idle). */
  get busy(): number {
    return this.all.size - this.idle.length;
  }

  /** Hands a worker whose run has ended to the next waiting run, or keeps it idle. */
  release(worker: SandboxWorker): void {
    worker.listener = undefined;
    if (worker.dead) {
      this.replace();
      return;
    }
    if (this.#closed) {
      void worker.end();
      return;
    }
    const next = this.waiting.shift();
    if (next !== undefined) {
      next.resolve(worker);
      return;
    }
    worker.hold(false);
    this.idle.push(worker);
  }

  /** Ends a worker that does not answer, and lets a waiting run start a new one. */
  discard(worker: SandboxWorker): void {
    worker.listener = undefined;
    worker.dead = true;
    this.all.delete(worker);
    void worker.end();
    this.replace();
  }

  private replace(): void {
    const next = this.waiting.shift();
    if (next === undefined) return;
    const worker = new SandboxWorker(this.sizing, (dead) => this.all.delete(dead));
    this.all.add(worker);
    next.resolve(worker);
  }

  /** Ends every worker; runs still waiting fail with `internal`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.waiting.splice(0)) {
      waiter.reject(new ToolError('internal', 'code mode was closed'));
    }
    this.idle.length = 0;
    const workers = [...this.all];
    this.all.clear();
    await Promise.all(workers.map((worker) => worker.end()));
  }
}
