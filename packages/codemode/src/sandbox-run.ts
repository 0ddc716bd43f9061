// One program's run inside the worker: the API set up in a fresh sandbox, the program compiled
// and started, its jobs pumped, its calls drained for the main thread and its answers settled,
// until it ends with an outcome. The worker (worker.ts) drives it and waits for the answers.

import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { STOP } from './channel.js';
import type { Engine } from './engine.js';
import {
  CLOSING,
  OPENING,
  PRELUDE,
  PRELUDE_FILE,
  PROGRAM_FILE,
  unpack,
  unpackCalls,
} from './prelude.js';
import type { HostMessage, LogEntry, Outcome, SandboxLimits, WorkerMessage } from './protocol.js';
import {
  bytes,
  exhaustedMessage,
  internal,
  programFailure,
  valueFailure,
  type Failure,
} from './run-failures.js';

// Room the worker needs in the engine's memory to read an error out of the sandbox; none left
// means the program spent all of it.
const ROOM = 64 << 10;

// The free room in the engine's memory below which it counts as nearly full: an eighth of the
// program's bound, at least 1 MiB. Between two of QuickJS's interrupts a chain of promises takes
// well under that.
const crowdedBelow = (memoryLimitBytes: number): number =>
  Math.max(1 << 20, Math.floor(memoryLimitBytes / 8));

/** One `settle` message's answers. */
export type Batch = Extract<HostMessage, { kind: 'settle' }>;

/** What a run needs of its worker: the shared control block, the engine, and the channel. */
export interface RunLink {
  readonly control: Int32Array;
  readonly engine: Engine;
  /** Posts on the run channel (and tells a spinning main thread so). */
  send(message: WorkerMessage): void;
}

/** One program's run: its runtime, context, pending calls and what it has logged. */
export class Run {
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
  /**
   * Whether the engine's memory was found nearly full while the program ran (looked at on
   * QuickJS's interrupts until found). QuickJS throws `null` when it has no room left even for
   * its "out of memory" error, and by the time that `null` reaches the program's end the memory
   * is free again: this is what tells it from a `null` the program threw itself.
   */
  crowded = false;
  calls = 0;
  searches = 0;
  fatal: Failure | undefined;
  result: QuickJSHandle | undefined;
  ended = false;
  /** The program's text, for where its end is when an error points past it. */
  program = '';

  constructor(
    readonly id: number,
    readonly limits: SandboxLimits,
    readonly spinMs: number,
    private readonly link: RunLink,
  ) {
    const sandbox = link.engine.take();
    this.runtime = sandbox.runtime;
    this.vm = sandbox.vm;
    this.runtime.setMemoryLimit(limits.memoryLimitBytes);
    this.runtime.setMaxStackSize(limits.maxStackBytes);
    const margin = crowdedBelow(limits.memoryLimitBytes);
    this.runtime.setInterruptHandler(() => {
      if (!this.crowded && !link.engine.fits(margin)) this.crowded = true;
      return this.fatal !== undefined || Atomics.load(link.control, STOP) !== 0;
    });
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
      if (op === 'tool' && ++this.calls > this.limits.maxToolCalls) this.full('tool');
      if (op === 'search' && ++this.searches > this.limits.maxSearches) this.full('search');
    }
    if (this.fatal !== undefined) return;
    this.inFlight += calls.length;
    this.outbox += packed;
  }

  /** The program passed its call or search bound: the interrupt handler stops it at once. */
  full(op: 'tool' | 'search'): void {
    this.exhaust(
      op === 'search'
        ? `the program made more than ${String(this.limits.maxSearches)} searches (maxSearches); search once and reuse what it found`
        : `the program made more than ${String(this.limits.maxToolCalls)} tool calls (maxToolCalls); make fewer calls in one run`,
    );
  }

  /** `hostLog(level, text)` inside the sandbox: kept until the log bound is spent. */
  hostLog(level: QuickJSHandle, text: QuickJSHandle): void {
    const { vm } = this;
    if (this.fatal !== undefined) return;
    const name = vm.typeof(level) === 'string' ? vm.getString(level) : 'log';
    const line = vm.typeof(text) === 'string' ? vm.getString(text) : '';
    this.logBytes += Buffer.byteLength(line) + 1;
    if (this.logBytes > this.limits.maxLogBytes) {
      this.exhaust(
        `the program logged more than ${bytes(this.limits.maxLogBytes)} (maxLogBytes); log less`,
      );
      return;
    }
    this.logs.push({ level: name === 'warn' || name === 'error' ? name : 'log', text: line });
  }

  /**
   * Whether `text` can be copied into the sandbox's memory now ({@link Engine.fits}): a copy
   * that cannot would write over the engine's own data.
   */
  fits(text: string): boolean {
    return this.link.engine.fits(Buffer.byteLength(text) + 1);
  }

  /** Sets up the API and compiles the program; a failure here ends the run at once. */
  start(program: string, toolsJson: string): Failure | undefined {
    const { vm } = this;
    this.program = program;
    const source = `${OPENING}${program}${CLOSING}`;
    for (const [what, text] of [
      ['the tool list', toolsJson],
      ["the program's text", source],
    ] as const) {
      if (!this.fits(text)) {
        return {
          ok: false,
          code: 'resource_exhausted',
          message: `out of memory: there is no room for ${what} (${bytes(Buffer.byteLength(text))}) in the program's ${bytes(this.limits.memoryLimitBytes)} of memory (memoryLimitBytes)`,
        };
      }
    }
    const hostFull = vm.newFunction('hostFull', (op) => {
      this.full(vm.typeof(op) === 'string' && vm.getString(op) === 'search' ? 'search' : 'tool');
    });
    const hostLog = vm.newFunction('hostLog', (level, text) => {
      this.hostLog(level, text);
    });
    const spec = vm.newString(toolsJson);
    const bound = vm.newNumber(this.limits.maxToolCalls);
    const searchBound = vm.newNumber(this.limits.maxSearches);
    try {
      const setup = vm.unwrapResult(vm.evalCode(PRELUDE, PRELUDE_FILE, { type: 'global' }));
      const made = vm.unwrapResult(
        vm.callFunction(setup, vm.undefined, hostFull, hostLog, spec, bound, searchBound),
      );
      setup.dispose();
      // Read before the program exists, so nothing it does to Array.prototype can interfere.
      const finish = vm.getProp(made, 0);
      this.settler = vm.getProp(made, 1);
      this.drainer = vm.getProp(made, 2);
      made.dispose();
      const compiled = vm.evalCode(source, PROGRAM_FILE, {
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
      searchBound.dispose();
    }
  }

  /** A QuickJS error as a failure: its message, and its line and column in the program. */
  failureOf(error: QuickJSHandle, code: 'invalid_argument' | 'execution'): Failure {
    const stopped = this.stopped();
    if (stopped !== undefined) return stopped;
    // With no room left in the engine's memory QuickJS cannot even make its "out of memory"
    // error (what it throws then has no name or message), and reading one would need room for
    // the names read: that is the memory bound, whatever was thrown.
    if (!this.link.engine.fits(ROOM)) return this.failure('', 'out of memory', '', code);
    const { vm } = this;
    if (vm.sameValue(error, vm.null)) return this.nullThrown();
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

  /** Whether the engine's memory ran short in this run: found nearly full, or full now. */
  ranShort(): boolean {
    return this.crowded || !this.link.engine.fits(ROOM);
  }

  /** The memory bound, as the failure a program (or model) reads. */
  outOfMemory(): Failure {
    return {
      ok: false,
      code: 'resource_exhausted',
      message: exhaustedMessage('out of memory', this.limits),
    };
  }

  /** A thrown `null`: the memory bound when the memory ran short in the run, else the program's own. */
  nullThrown(): Failure {
    if (this.ranShort()) return this.outOfMemory();
    return { ok: false, code: 'execution', message: 'the program threw null' };
  }

  /**
   * A call into the engine threw ({@link Engine.failed}; the worker is retired either way).
   * QuickJS's paths for an allocation that fails are where it faults: in a run whose memory ran
   * short, the fault is the memory bound, which is what the program can act on.
   */
  engineFailed(error: unknown): Failure {
    const failure = this.link.engine.failed(error);
    return failure.code === 'internal' && this.crowded ? this.outOfMemory() : failure;
  }

  failure(name: string, message: string, stack: string, code: Failure['code']): Failure {
    return programFailure({ name, message, stack }, code, this.program, this.limits);
  }

  stopped(): Failure | undefined {
    if (this.fatal !== undefined) return this.fatal;
    if (Atomics.load(this.link.control, STOP) !== 0)
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
      // QuickJS drops a promise job it has no memory to queue, and what awaited it then waits
      // for ever: in a run whose memory ran short, that is the memory bound.
      if (this.crowded) return this.outOfMemory();
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
        return valueFailure(body, this.limits) ?? { ok: true, json: body };
      case 'Z':
        return this.nullThrown();
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
    this.link.send({ kind: 'calls', run: this.id, calls });
  }

  /**
   * Hands a batch of answers to the prelude's `settle`: one JSON text the main thread made,
   * `[[call, ok, answer], ...]`, which QuickJS parses once.
   */
  settle({ count, batch }: Batch): void {
    const settler = this.settler;
    if (count === 0 || settler === undefined) return;
    this.inFlight -= count;
    if (!this.fits(batch)) {
      const size = bytes(Buffer.byteLength(batch));
      const answers =
        count === 1 ? 'the answer to a call' : `the answers to ${String(count)} calls`;
      this.exhaust(
        `out of memory: there is no room for ${answers} (${size} of JSON) in the program's ${bytes(this.limits.memoryLimitBytes)} of memory (memoryLimitBytes); ask the tools for less at once`,
      );
      return;
    }
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

  /**
   * Ends the run: disposes of its sandbox and reports `outcome`. An engine that failed is not
   * called again, and one whose disposal fails is broken too; either way the outcome, known
   * before the teardown, is what the main thread gets, told to retire the worker.
   */
  end(outcome: Outcome): void {
    if (this.ended) return;
    this.ended = true;
    const { engine } = this.link;
    if (!engine.broken) {
      try {
        this.settler?.dispose();
        this.drainer?.dispose();
        this.result?.dispose();
        this.vm.dispose();
        this.runtime.dispose();
      } catch (error) {
        engine.failed(error);
      }
    }
    const retire = engine.broken ? { retire: true as const } : {};
    // Calls the program made in its last steps and never awaited: the host says they never ran.
    const unsent = (this.outbox === '' ? [] : (unpackCalls(this.outbox) ?? []))
      .filter(({ op }) => op === 'tool')
      .map(({ target }) => target);
    this.link.send({
      kind: 'done',
      run: this.id,
      outcome,
      logs: this.logs,
      ...(unsent.length === 0 ? {} : { unsent }),
      ...retire,
    });
    engine.prepare();
  }
}
