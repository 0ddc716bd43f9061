// The worker thread that runs code-mode programs in QuickJS (WebAssembly), one run at a time,
// each in a fresh runtime and context, made ahead while the worker idles after a run. It
// never calls a tool itself: tool calls and searches go to the main thread as messages, and
// their answers come back as JSON text. While calls are in flight the worker blocks on the
// shared control block rather than in its event loop (channel.ts). The main thread stops a run
// through the same block, which the interrupt handler reads even inside a tight loop.

import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { ANSWERS, MESSAGES, nextMessage, SpinPolicy, STOP, spinFor } from './channel.js';
import { PRELUDE, PRELUDE_FILE, PROGRAM_FILE, unpack, unpackCalls } from './prelude.js';
import type { HostMessage, LogEntry, Outcome, SandboxLimits, WorkerMessage } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('the code-mode sandbox runs as a worker thread');
// The variant's types describe its CommonJS build, whose default export TypeScript sees as the
// whole module; the ESM build imported here exports the variant itself.
const variant = RELEASE_SYNC as unknown as QuickJSSyncVariant;
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
// QuickJS's own accounting of its heap misses memory that grows by realloc (array storage, for
// one), so the WebAssembly memory itself is capped too: at the run's bound plus room for the
// engine's own stack and data. Past it, allocations fail and QuickJS throws "out of memory".
const PAGE = 64 << 10;
const ENGINE_BYTES = 24 << 20;
// (The compiler's lib here has no WebAssembly types; Node has the global.)
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { Memory: new (size: { initial: number; maximum: number }) => unknown };
};
const wasmMemory = new wasm.Memory({
  initial: 256,
  maximum: Math.ceil((memoryLimitBytes + ENGINE_BYTES) / PAGE),
});
const capped = newVariant(variant, { wasmMemory });
const quickjs = await newQuickJSWASMModuleFromVariant(capped);

// The program is the body of an async function; the opening shares its first line, so line
// numbers of errors are the program's own (columns on line 1 are shifted by its length). The API
// reaches it as the parameters of an outer function, not only as globals: QuickJS lets
// `Object.defineProperty(globalThis, 'tools', ...)` replace even a non-configurable global, and
// a program may declare its own `search` or `console` in its body, which shadows them.
const OPENING = '((tools, search, console) => async () => {';
const CLOSING = '\n})';

// How long the worker spins for answers before it sleeps (channel.ts): twice the typical recent
// wait, so an upstream that answers within a few hundred µs is waited for awake, up to 1 ms a
// wait; slower ones are slept through. Its CPU is the worker's own core, and it never spins on a
// machine without one to spare, nor past the run's `spinMs` (execute.ts).
const SPIN_BOUNDS = { minMs: 0.05, maxMs: 1 } as const;
const spin = new SpinPolicy(SPIN_BOUNDS);

/** A runtime and its one context, made before the run that will use them. */
interface Sandbox {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
}

let current: Run | undefined;
// Made once a run has ended, while the worker would otherwise idle, so that the next run does
// not wait for it (most of a trivial run's cost). It is never used twice: reusing a runtime
// with a fresh context measured slower than a new runtime (the freed context's cyclic garbage
// is left for later collections to sweep), and a new one shares nothing with an earlier run.
let spare: Sandbox | undefined;

function newSandbox(): Sandbox {
  const runtime = quickjs.newRuntime();
  runtime.setInterruptHandler(
    () => Atomics.load(control, STOP) !== 0 || current?.fatal !== undefined,
  );
  // No module is ever loaded: `import('node:fs')` inside the program rejects.
  runtime.setModuleLoader((name) => ({
    error: new Error(`module "${name}" cannot be loaded in code mode; use tools.* instead`),
  }));
  return { runtime, vm: runtime.newContext() };
}

/** The spare sandbox when there is one, else a new one. */
function takeSandbox(): Sandbox {
  const taken = spare ?? newSandbox();
  spare = undefined;
  return taken;
}

// Errors of QuickJS itself that mean a bound of the sandbox was reached, not a bug of the program.
const EXHAUSTED = /^(out of memory|stack overflow|string too long)$/;

type Failure = Extract<Outcome, { ok: false }>;
/** One `settle` message's answers. */
type Batch = Extract<HostMessage, { kind: 'settle' }>;

/** One program's run: its runtime, context, pending calls and what it has logged. */
class Run {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  /** Calls sent to the main thread and not yet answered. */
  inFlight = 0;
  /** The prelude's `settle`, which resolves the program's promises of a batch of answers. */
  settler: QuickJSHandle | undefined;
  /** The prelude's `drain`, which hands over the calls the program queued. */
  drainer: QuickJSHandle | undefined;
  readonly logs: LogEntry[] = [];
  /** Calls made since the last message to the main thread (packed), sent once the pump is done. */
  outbox = '';
  logBytes = 0;
  calls = 0;
  fatal: Failure | undefined;
  result: QuickJSHandle | undefined;
  ended = false;

  constructor(
    readonly id: number,
    readonly limits: SandboxLimits,
    readonly spinMs: number,
  ) {
    const sandbox = takeSandbox();
    this.runtime = sandbox.runtime;
    this.vm = sandbox.vm;
    this.runtime.setMemoryLimit(limits.memoryLimitBytes);
    this.runtime.setMaxStackSize(limits.maxStackBytes);
  }

  /** Posts on the channel, then bumps `MESSAGES`, so a spinning main thread sees it at once. */
  send(message: WorkerMessage): void {
    channel.postMessage(message);
    Atomics.add(control, MESSAGES, 1);
  }

  exhaust(message: string): void {
    this.fatal ??= { ok: false, code: 'resource_exhausted', message };
  }

  /**
   * Takes the calls the program queued since the last drain (the prelude's `drain`: heads
   * `op:call:target` and JSON texts in turn, packed) into the outbox, counting them against the
   * call bound here too. The promise the program awaits is the prelude's own, settled through
   * `settle` (one host call per batch of answers, not a promise capability per call).
   */
  drain(): void {
    const { vm, drainer } = this;
    if (drainer === undefined) return;
    const drained = vm.callFunction(drainer, vm.undefined);
    if (drained.error !== undefined) {
      // Packing allocates in the sandbox, which may be out of memory.
      const failure = this.failureOf(drained.error, 'execution');
      drained.error.dispose();
      this.fatal ??= failure.code === 'resource_exhausted' ? failure : internal(failure.message);
      return;
    }
    const packed = vm.typeof(drained.value) === 'string' ? vm.getString(drained.value) : '';
    drained.value.dispose();
    if (packed === '') return;
    // Read here to count and check them; they cross to the main thread as the packed text.
    const calls = unpackCalls(packed);
    if (calls === undefined) {
      this.fatal ??= internal('the sandbox queued a call the worker cannot read');
      return;
    }
    for (const { op } of calls) {
      if (op === 'tool' && ++this.calls > this.limits.maxToolCalls) this.full();
    }
    if (this.fatal !== undefined) return;
    this.inFlight += calls.length;
    this.outbox += packed;
  }

  /** The program passed its call bound: the interrupt handler stops it at once. */
  full(): void {
    this.exhaust(`the program made more than ${String(this.limits.maxToolCalls)} tool calls`);
  }

  /** `hostLog(level, text)` inside the sandbox: kept until the log bound is spent. */
  hostLog(level: QuickJSHandle, text: QuickJSHandle): void {
    const { vm } = this;
    if (this.fatal !== undefined) return;
    const name = vm.typeof(level) === 'string' ? vm.getString(level) : 'log';
    const line = vm.typeof(text) === 'string' ? vm.getString(text) : '';
    this.logBytes += Buffer.byteLength(line) + 1;
    if (this.logBytes > this.limits.maxLogBytes) {
      this.exhaust(`the program logged more than ${String(this.limits.maxLogBytes)} bytes`);
      return;
    }
    this.logs.push({ level: name === 'warn' || name === 'error' ? name : 'log', text: line });
  }

  /** Sets up the API and compiles the program; a failure here ends the run at once. */
  start(program: string, toolsJson: string): Failure | undefined {
    const { vm } = this;
    const hostFull = vm.newFunction('hostFull', () => {
      this.full();
    });
    const hostLog = vm.newFunction('hostLog', (level, text) => {
      this.hostLog(level, text);
    });
    const spec = vm.newString(toolsJson);
    const bound = vm.newNumber(this.limits.maxToolCalls);
    try {
      const setup = vm.unwrapResult(vm.evalCode(PRELUDE, PRELUDE_FILE, { type: 'global' }));
      const made = vm.unwrapResult(
        vm.callFunction(setup, vm.undefined, hostFull, hostLog, spec, bound),
      );
      setup.dispose();
      // Read before the program exists, so nothing it does to Array.prototype can interfere.
      const finish = vm.getProp(made, 0);
      this.settler = vm.getProp(made, 1);
      this.drainer = vm.getProp(made, 2);
      made.dispose();
      const compiled = vm.evalCode(`${OPENING}${program}${CLOSING}`, PROGRAM_FILE, {
        type: 'global',
      });
      if (compiled.error !== undefined) {
        const failure = this.failureOf(compiled.error, 'invalid_argument');
        compiled.error.dispose();
        finish.dispose();
        return failure;
      }
      const started = vm.callFunction(finish, vm.undefined, compiled.value);
      compiled.value.dispose();
      finish.dispose();
      if (started.error !== undefined) {
        const failure = this.failureOf(started.error, 'execution');
        started.error.dispose();
        return failure;
      }
      this.result = started.value;
      return undefined;
    } finally {
      hostFull.dispose();
      hostLog.dispose();
      spec.dispose();
      bound.dispose();
    }
  }

  /** A QuickJS error as a failure: its message, and its line and column in the program. */
  failureOf(error: QuickJSHandle, code: 'invalid_argument' | 'execution'): Failure {
    const stopped = this.stopped();
    if (stopped !== undefined) return stopped;
    const { vm } = this;
    if (vm.typeof(error) !== 'object') {
      const dumped: unknown = vm.dump(error);
      return this.failure('', typeof dumped === 'string' ? dumped : String(dumped), '', code);
    }
    // Read property by property rather than with `dump`, which would run a `toJSON` the program
    // may have put on Object.prototype.
    const text = (key: string): string => {
      const value = vm.getProp(error, key);
      const read = vm.typeof(value) === 'string' ? vm.getString(value) : '';
      value.dispose();
      return read;
    };
    return this.failure(text('name'), text('message'), text('stack'), code);
  }

  failure(name: string, message: string, stack: string, code: Failure['code']): Failure {
    if (EXHAUSTED.test(message)) return { ok: false, code: 'resource_exhausted', message };
    const text = name === '' ? message : `${name}: ${message}`;
    const at = new RegExp(`${PROGRAM_FILE.replace('.', '\\.')}:(\\d+):(\\d+)`).exec(stack);
    if (at === null) return { ok: false, code, message: text };
    const line = Number(at[1]);
    const column = line === 1 ? Math.max(1, Number(at[2]) - OPENING.length) : Number(at[2]);
    return { ok: false, code, message: `${text} (line ${String(line)})`, line, column };
  }

  stopped(): Failure | undefined {
    if (this.fatal !== undefined) return this.fatal;
    if (Atomics.load(control, STOP) !== 0)
      return { ok: false, code: 'stopped', message: 'stopped' };
    return undefined;
  }

  /** Runs the sandbox's pending jobs; the outcome once the program has ended, else undefined. */
  pump(): Outcome | undefined {
    const jobs = this.runtime.executePendingJobs();
    if (jobs.error !== undefined) {
      const failure = this.failureOf(jobs.error, 'execution');
      jobs.error.dispose();
      return failure;
    }
    let stopped = this.stopped();
    if (stopped !== undefined) return stopped;
    this.drain();
    stopped = this.stopped();
    if (stopped !== undefined) return stopped;
    const result = this.result;
    if (result === undefined) return { ok: false, code: 'internal', message: 'no program' };
    const state = this.vm.getPromiseState(result);
    if (state.type === 'pending') {
      if (this.inFlight > 0) return undefined;
      return {
        ok: false,
        code: 'execution',
        message: 'the program awaits a promise that can never settle (no tool call is in flight)',
      };
    }
    if (state.type === 'rejected') {
      const failure = this.failureOf(state.error, 'execution');
      state.error.dispose();
      return failure;
    }
    const tagged = this.vm.getString(state.value);
    if (state.value !== result) state.value.dispose();
    return this.outcomeOf(tagged);
  }

  outcomeOf(tagged: string): Outcome {
    const body = tagged.slice(1);
    switch (tagged[0]) {
      case 'U':
        return { ok: true, json: undefined };
      case 'V':
        if (Buffer.byteLength(body) > this.limits.maxResultBytes) {
          return {
            ok: false,
            code: 'resource_exhausted',
            message: `the program's value is larger than ${String(this.limits.maxResultBytes)} bytes of JSON`,
          };
        }
        return { ok: true, json: body };
      case 'N':
        return {
          ok: false,
          code: 'execution',
          message: `the program returned a value that is not JSON: ${body}`,
        };
      default: {
        const [name = '', message = '', stack = ''] = unpack(body);
        return this.failure(name, message, stack, 'execution');
      }
    }
  }

  /** Sends the calls the program made since the last message, all in one. */
  flush(): void {
    if (this.outbox === '') return;
    const calls = this.outbox;
    this.outbox = '';
    this.send({ kind: 'calls', run: this.id, calls });
  }

  /**
   * Hands a batch of answers to the prelude's `settle`: one JSON text the main thread made,
   * `[[call, ok, answer], ...]`, which QuickJS parses once.
   */
  settle({ count, batch }: Batch): void {
    const settler = this.settler;
    if (count === 0 || settler === undefined) return;
    this.inFlight -= count;
    const text = this.vm.newString(batch);
    const settled = this.vm.callFunction(settler, this.vm.undefined, text);
    text.dispose();
    if (settled.error === undefined) {
      settled.value.dispose();
      return;
    }
    // Settling allocates in the sandbox, which may be out of memory.
    const failure = this.failureOf(settled.error, 'execution');
    settled.error.dispose();
    this.fatal ??= failure.code === 'resource_exhausted' ? failure : internal(failure.message);
  }

  end(outcome: Outcome): void {
    if (this.ended) return;
    this.ended = true;
    this.settler?.dispose();
    this.drainer?.dispose();
    this.result?.dispose();
    this.vm.dispose();
    this.runtime.dispose();
    this.send({ kind: 'done', run: this.id, outcome, logs: this.logs });
    try {
      spare ??= newSandbox();
    } catch {
      // The next run makes its own, and reports what fails then.
    }
  }
}

port.postMessage({ kind: 'ready', run: 0 } satisfies WorkerMessage);
spare = newSandbox();

/** A failure of the worker's own code (not the program's) as a run's outcome. */
function internal(error: unknown): Failure {
  return {
    ok: false,
    code: 'internal',
    message: error instanceof Error ? error.message : String(error),
  };
}

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

/** Runs `run` to its end: pump, send the calls, wait for their answers, settle, again. */
function drive(run: Run): void {
  // Read before the first calls go out; afterwards each wait hands the next its count.
  let seen = Atomics.load(control, ANSWERS);
  for (;;) {
    let outcome: Outcome | undefined;
    try {
      outcome = run.pump();
    } catch (error) {
      outcome = internal(error);
    }
    if (outcome !== undefined) {
      run.end(outcome);
      current = undefined;
      return;
    }
    run.flush();
    const waited = awaitAnswers(run, seen);
    seen = waited.seen;
    const answers = waited.answers;
    const stopped = run.stopped();
    if (stopped !== undefined) {
      run.end(stopped);
      current = undefined;
      return;
    }
    try {
      // Every answer first, then one pump: the program resumes once for all of them.
      for (const answered of answers) run.settle(answered);
    } catch (error) {
      run.exhaust(error instanceof Error ? error.message : String(error));
    }
  }
}

port.on('message', (message: HostMessage) => {
  if (message.kind !== 'run') return;
  const run = new Run(message.run, message.limits, message.spinMs);
  current = run;
  let failed: Failure | undefined;
  try {
    failed = run.start(message.program, JSON.stringify(message.tools));
  } catch (error) {
    failed = internal(error);
  }
  if (failed !== undefined) {
    run.end(failed);
    current = undefined;
    return;
  }
  drive(run);
});
