// Spawning a stdio server's child, kept free of the MCP SDK and of the rest of the toolkit: the
// CLI imports this (through `@toolplane/toolkit/spawn`) before anything heavy loads, to start its
// servers while it loads, and the stdio transport spawns through it too, so that both start a
// child the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import { armReaper, disarmReaper } from './reaper.js';

/** What a stdio server is started from: the fields of a connector's stdio source. */
export interface StdioSpawnOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to {@link inheritedEnvironment}, not to the whole of ours. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

// The variables a server inherits when its config gives it an environment of its own: enough to
// find programs and a home, nothing of ours it was not given (the MCP SDK's choice; a test holds
// the two lists equal).
const INHERITED =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'PROGRAMW6432',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/**
 * The part of this process's environment a stdio server inherits. Values that start with `()`
 * (exported shell functions) are left out: they are code, not settings.
 */
export function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = process.env[key];
    if (value === undefined || value.startsWith('()')) continue;
    env[key] = value;
  }
  return env;
}

/**
 * Whether each server leads a process group of its own (not on Windows), so that what it starts
 * (a shell's or npx's child: the real server) is signalled with it.
 */
export const GROUPS = process.platform !== 'win32';

/** Sends `signal` to the child and, where there are process groups, to everything in its group. */
export function signalAll(child: ChildProcess, signal: NodeJS.Signals): void {
  if (GROUPS && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // No group left: the child alone, if it is still there.
    }
  }
  child.kill(signal);
}

// Children whose pipes are still open, killed for sure when this process exits before closing them.
const running = new Set<ChildProcess>();
let hooked = false;

/** Kills `child` with its group if this process exits before {@link untrack} is called for it. */
export function track(child: ChildProcess): void {
  running.add(child);
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const left of running) signalAll(left, 'SIGKILL');
  });
}

/** Lets `child` outlive this process's exit (it was closed, or handed to a reaper). */
export function untrack(child: ChildProcess): void {
  running.delete(child);
}

/** What a spawned child tells its owner, in the order it happened. */
export interface StdioChildHandlers {
  /** The child is running. */
  readonly spawn: () => void;
  /** It could not be spawned (`ENOENT`, …), or one of its pipes failed. */
  readonly error: (error: Error) => void;
  readonly stdout: (chunk: Buffer) => void;
  readonly stderr: (chunk: Buffer) => void;
  /** The child exited (its pipes may stay open after it: see `close`). */
  readonly exit: () => void;
  /** The child exited and its pipes have closed. */
  readonly close: () => void;
}

type ChildEvent =
  | { readonly kind: 'spawn' | 'exit' | 'close' }
  | { readonly kind: 'error'; readonly error: Error }
  | { readonly kind: 'stdout' | 'stderr'; readonly chunk: Buffer };

/**
 * A stdio server's child, spawned at once, whose events (its output above all) are kept until an
 * owner {@link attach}es: nothing it writes before then is lost, and an exit before then is told
 * as it would have been live. Spawned detached where there are process groups, with
 * `env` added to {@link inheritedEnvironment}, no shell, and tracked: left running when this
 * process exits, it is killed with its group.
 */
export class StdioChild {
  /** The running child; its stdin is the owner's to write. */
  readonly child: ChildProcess;
  #handlers: StdioChildHandlers | undefined;
  /** Events not yet handed to the owner; undefined once they flow straight to it. */
  #pending: ChildEvent[] | undefined = [];
  #flushing = false;
  /** A reaper armed as the child started (see {@link armReaper}), for an owner that releases it. */
  #reaper: ChildProcess | undefined;

  constructor(options: StdioSpawnOptions) {
    const { command, args = [], env, cwd } = options;
    const child = spawn(command, [...args], {
      env: { ...inheritedEnvironment(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
      detached: GROUPS,
      ...(cwd === undefined ? {} : { cwd }),
    });
    this.child = child;
    track(child);
    child.once('spawn', () => {
      this.#emit({ kind: 'spawn' });
    });
    child.once('error', (error) => {
      this.#emit({ kind: 'error', error });
    });
    child.once('exit', () => {
      this.#emit({ kind: 'exit' });
    });
    child.once('close', () => {
      this.#emit({ kind: 'close' });
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.#emit({ kind: 'stdout', chunk });
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.#emit({ kind: 'stderr', chunk });
    });
    for (const stream of [child.stdin, child.stdout]) {
      stream.on('error', (error) => {
        this.#emit({ kind: 'error', error });
      });
    }
  }

  /**
   * Starts the reaper of the child's group now, while this process is small and cheap to fork,
   * for an owner that will release the child instead of waiting for its exit (see reaper.ts).
   */
  armReaper(): void {
    if (GROUPS && this.child.pid !== undefined && this.#reaper === undefined) {
      this.#reaper = armReaper(this.child.pid);
    }
  }

  /** The reaper {@link armReaper} started, handed over once; undefined if none. */
  takeReaper(): ChildProcess | undefined {
    const reaper = this.#reaper;
    this.#reaper = undefined;
    return reaper;
  }

  /** Whether an owner has attached. */
  get attached(): boolean {
    return this.#handlers !== undefined;
  }

  /**
   * Hands the child to its owner. What happened before is told in two steps: its start (or its
   * failure to start) at once, the rest (output, an exit) once the owner has {@link flush}ed,
   * as a live child's would come after the owner's first request: an owner that writes its
   * first request once started sees an early exit after that write, as it would have live.
   *
   * @throws {Error} when an owner has attached already.
   */
  attach(handlers: StdioChildHandlers): void {
    if (this.#handlers !== undefined) throw new Error('the stdio child is already attached');
    this.#handlers = handlers;
    const pending = this.#pending ?? [];
    const started = pending.findIndex((event) => event.kind === 'spawn' || event.kind === 'error');
    for (const event of pending.splice(0, started + 1)) this.#dispatch(event);
    // Not started yet, or nothing else happened: from now on events flow live.
    if (started < 0 || pending.length === 0) this.#pending = undefined;
  }

  /** Whether events from before {@link attach} are still to be told (see {@link flush}). */
  get replaying(): boolean {
    return this.#handlers !== undefined && this.#pending !== undefined;
  }

  /**
   * Tells the owner, on the next turn of the event loop, what the child did between its start
   * and {@link attach}; from then on events flow live. The owner calls it after its first write
   * (and before waiting for the child to close). Idempotent.
   */
  flush(): void {
    if (this.#pending === undefined || this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      const rest = this.#pending ?? [];
      this.#pending = undefined;
      for (const event of rest) this.#dispatch(event);
    });
  }

  /**
   * Ends a child no owner took: stdin closed, SIGTERM to its group. Its output is dropped from
   * now on; it stays tracked, so if it outlives this process it is SIGKILLed then.
   */
  discard(): void {
    if (this.#handlers !== undefined) return;
    this.#handlers = DROP;
    this.#pending = undefined;
    disarmReaper(this.takeReaper());
    const { child } = this;
    child.stdin?.end();
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      signalAll(child, 'SIGTERM');
    }
    child.once('close', () => {
      untrack(child);
    });
  }

  #emit(event: ChildEvent): void {
    if (this.#pending === undefined) this.#dispatch(event);
    else this.#pending.push(event);
  }

  #dispatch(event: ChildEvent): void {
    const handlers = this.#handlers;
    if (handlers === undefined) return;
    switch (event.kind) {
      case 'error':
        handlers.error(event.error);
        break;
      case 'stdout':
      case 'stderr':
        handlers[event.kind](event.chunk);
        break;
      default:
        handlers[event.kind]();
    }
  }
}

const ignore = (): void => undefined;
const DROP: StdioChildHandlers = {
  spawn: ignore,
  error: ignore,
  stdout: ignore,
  stderr: ignore,
  exit: ignore,
  close: ignore,
};
