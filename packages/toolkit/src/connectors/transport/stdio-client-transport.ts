import { type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import {
  ProtocolErrorCode,
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { NdjsonLineSplitter, type SkippedLine } from '@toolplane/toolmodel/wire';
import { armReaper, disarmReaper, EXIT_GRACE_MS, releaseGroup } from '../spawn/reaper.js';
import { GROUPS, signalAll, StdioChild, untrack } from '../spawn/stdio-child.js';
import { idleBegins, whenIdle } from '../idle-work.js';
import { readMessage } from './wire-shapes.js';

/** The largest message a stdio server may send unless told otherwise: 10 MiB, as the SDK's. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The `reason` in the `data` of the error a request answered over the limit fails with. */
export const MESSAGE_TOO_LARGE = 'message_too_large';

/** The `data` of the JSON-RPC error a request answered over the limit fails with. */
export interface MessageTooLargeData {
  readonly reason: typeof MESSAGE_TOO_LARGE;
  /** The size of the answer that was dropped. */
  readonly bytes: number;
  /** The limit it was over. */
  readonly maxMessageBytes: number;
}

/** Options for {@link StdioClientTransport}. */
export interface StdioClientTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the SDK's default environment (`PATH`, `HOME`, …), not the whole of ours. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Larger messages are refused one by one (see the class); default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number;
  /**
   * A child started already from these same options (see `StdioPrestarts`), adopted by
   * {@link StdioClientTransport.start} instead of spawning; called once, at start.
   */
  readonly adopt?: () => StdioChild | undefined;
  /**
   * How {@link StdioClientTransport.close} lets the child go: `'wait'` (default) until it has
   * exited, or `'release'` for a one-shot command whose answer is out: stdin closed, the child
   * and its pipes let go at once, and a detached reaper that outlives this process sends SIGTERM
   * to its group after a grace, SIGKILL after another, should it ignore the end of its input.
   * A child that never sent a message (its start ran out of time, or it failed before its first
   * answer) is still ended the `'wait'` way: the command returns with its group gone.
   */
  readonly closing?: 'wait' | 'release';
}

/** How many of a server's stray stdout lines are kept, and how much of each. */
const MAX_STRAY_LINES = 3;
const MAX_STRAY_CHARS = 200;

/**
 * The MCP stdio client transport: spawns the server, writes newline-delimited JSON-RPC to its
 * stdin, reads it from its stdout, and pipes its stderr (see {@link stderr}).
 *
 * Unlike the SDK's, a message over `maxMessageBytes` costs that message alone: it is skipped
 * as it streams in, never buffered whole, and the request it answered (its ID is read off the
 * line's ends) fails with a JSON-RPC error that says why, while the connection goes on; an
 * oversized request of the server's own is answered to the server with an error instead. Lines
 * are split without copying what came before (the SDK's concatenates every chunk). The child
 * leads a process group of its own (not on Windows), so that signals reach what it started (the
 * server behind `sh -c` or `npx`). `close()` closes stdin, then sends SIGTERM and SIGKILL to the
 * group a second apart until the child has exited, and resolves once its pipes have closed; a
 * second after the child exits, whatever still holds them is killed. A child left running when
 * this process exits is killed with its group.
 */
export class StdioClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  readonly #options: StdioClientTransportOptions;
  readonly #max: number;
  readonly #stderr = new PassThrough();
  #child: ChildProcess | undefined;
  /** Settles when the child has exited. */
  #exited: Promise<void> = Promise.resolve();
  /** Settles when its pipes have closed too (see {@link onclose}). */
  #closed: Promise<void> = Promise.resolve();
  #lines: NdjsonLineSplitter;
  #told = false;
  /** Whether the child has sent a message: only such a child is released (see `closing`). */
  #answered = false;
  /** The child's events, told once its first request is written (see `StdioChild.flush`). */
  #spawned: StdioChild | undefined;
  /** Whether the reaper of a `'release'` transport has been asked for (see {@link #armReaper}). */
  #reaping = false;
  /** That reaper, waiting for its word: a line on its stdin (see {@link #armReaper}). */
  #reaper: ChildProcess | undefined;
  /** The first lines on stdout that were no JSON-RPC message (see {@link strayOutput}). */
  readonly #stray: string[] = [];

  constructor(options: StdioClientTransportOptions) {
    this.#options = options;
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#lines = this.#splitter();
  }

  /** Splits stdout into lines, each a message; an oversized one is refused once it ends. */
  #splitter(): NdjsonLineSplitter {
    return new NdjsonLineSplitter({
      maxLineBytes: this.#max,
      onLine: (line) => {
        this.#read(line);
      },
      onSkipped: (skipped) => {
        this.#refuse(skipped);
      },
    });
  }

  /**
   * The first few lines the server wrote to stdout that were no JSON-RPC message (a banner, a log
   * line: what stdout must not carry), each cut to its start: most often why a start that never
   * answers did not.
   */
  get strayOutput(): readonly string[] {
    return this.#stray;
  }

  /** The server's stderr, readable from construction on (nothing it writes early is lost). */
  get stderr(): PassThrough {
    return this.#stderr;
  }

  /** The child's process ID once started; `null` before, or when it could not start. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /**
   * How the child ended (its exit code, or the signal that ended it); `undefined` while it runs,
   * and for a command that never started (Node gives its spawn error a negative exit code).
   */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    const child = this.#child;
    if (child?.pid === undefined || (child.exitCode === null && child.signalCode === null)) {
      return undefined;
    }
    return { code: child.exitCode, signal: child.signalCode };
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('the stdio transport is already started');
    const spawned = this.#options.adopt?.() ?? new StdioChild(this.#options);
    const { child } = spawned;
    this.#child = child;
    this.#spawned = spawned;
    let exited = (): void => undefined;
    this.#exited = new Promise((resolve) => {
      exited = resolve;
    });
    let closed = (): void => undefined;
    this.#closed = new Promise((resolve) => {
      closed = resolve;
    });
    // What the child started may hold its pipes open after it, and they would never close: a
    // second on, whatever is left of its group is killed and the pipes let go.
    let orphans: ReturnType<typeof setTimeout> | undefined;
    return new Promise((resolve, reject) => {
      let started = false;
      spawned.attach({
        spawn: () => {
          started = true;
          resolve();
        },
        error: (error) => {
          if (!started) reject(error);
          this.onerror?.(error);
        },
        stdout: (chunk) => {
          this.#lines.push(chunk);
        },
        stderr: (chunk) => {
          this.#stderr.write(chunk);
        },
        exit: () => {
          exited();
          orphans = setTimeout(() => {
            signalAll(child, 'SIGKILL');
            for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
          }, EXIT_GRACE_MS);
        },
        close: () => {
          clearTimeout(orphans);
          this.#disarmReaper();
          untrack(child);
          this.#stderr.end();
          closed();
          this.#tellClosed();
        },
      });
    });
  }

  /** Calls {@link onclose} once, whether the pipes closed or the child was released. */
  #tellClosed(): void {
    if (this.#told) return;
    this.#told = true;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // An adopted child's past comes next turn, after this write, as its answer would; until
    // then a write to a child that has exited meanwhile is lost as it would be in its pipe.
    const replaying = this.#spawned?.replaying === true;
    this.#spawned?.flush();
    const stdin = this.#child?.stdin;
    if (stdin == null || stdin.destroyed) {
      return replaying ? Promise.resolve() : Promise.reject(new Error('Not connected'));
    }
    if (!this.#reaping && this.#options.closing === 'release' && GROUPS) {
      this.#reaping = true;
      // Armed as the child started (an adopted one), or in the wait for the server's first
      // answer, after what is queued before it.
      this.#reaper = this.#spawned?.takeReaper();
      if (this.#reaper === undefined) {
        whenIdle(() => {
          this.#armReaper();
        });
        idleBegins();
      }
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.#child;
    this.#spawned?.flush();
    this.#lines = this.#splitter();
    // Never started (spawn failed): nothing to wait for.
    if (child?.pid === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      if (this.#options.closing === 'release' && GROUPS && this.#answered) {
        this.#release(child, child.pid);
        return;
      }
      this.#disarmReaper();
      child.stdin?.end();
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        if (await this.#exitsWithin(EXIT_GRACE_MS)) break;
        signalAll(child, signal);
      }
    }
    await this.#closed;
  }

  /** See {@link StdioClientTransportOptions.closing}. */
  #release(child: ChildProcess, pid: number): void {
    child.stdin?.end();
    releaseGroup(pid, this.#reaper);
    this.#reaper = undefined;
    untrack(child);
    for (const stream of [child.stdout, child.stderr]) stream?.destroy();
    child.unref();
    this.#tellClosed();
  }

  /**
   * Arms the reaper a `'release'` transport leaves behind (see reaper.ts), as idle work: the
   * fork is paid while the command waits for the server's first answer, not after its answer.
   */
  #armReaper(): void {
    const child = this.#child;
    // Answered already: the wait it was to fill is over, and the release spawns one itself.
    if (this.#answered || this.#told || child?.pid === undefined) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    this.#reaper = armReaper(child.pid);
  }

  /** Ends the reaper armed for a release that is not coming (see {@link #armReaper}). */
  #disarmReaper(): void {
    disarmReaper(this.#reaper);
    this.#reaper = undefined;
  }

  async #exitsWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(resolve, ms, false);
    });
    try {
      return await Promise.race([this.#exited.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #read(line: string): void {
    let parsed: unknown;
    let message: JSONRPCMessage;
    try {
      parsed = JSON.parse(line);
      message = readMessage(parsed);
    } catch (error) {
      if (this.#stray.length < MAX_STRAY_LINES) {
        this.#stray.push(
          line.length > MAX_STRAY_CHARS ? `${line.slice(0, MAX_STRAY_CHARS)}…` : line,
        );
      }
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      // An answer to a request of ours that is no JSON-RPC answer (`"result": null`): the
      // request fails now, saying so, instead of waiting out its timeout for an answer it had.
      const id = answeredId(parsed);
      if (id !== undefined) {
        this.onmessage?.({
          jsonrpc: '2.0',
          id,
          error: {
            code: ProtocolErrorCode.InternalError,
            message: 'the server answered with a message that is not a valid JSON-RPC response',
          },
        });
      }
      return;
    }
    this.#answered = true;
    this.onmessage?.(message);
  }

  /**
   * Fails what an oversized line was, when its ends tell: the request of ours it answered, or the
   * server's own request (answered to the server, whose IDs are its own and may equal ours).
   */
  #refuse(skipped: SkippedLine): void {
    const reason = `the server sent a message of ${skipped.bytes} bytes, over the limit of ${this.#max}; it was dropped`;
    const { kind, id } = describeLine(UTF8.decode(skipped.head), UTF8.decode(skipped.tail));
    this.onerror?.(new Error(reason));
    if (id === undefined) return;
    if (kind === 'response') {
      const data: MessageTooLargeData = {
        reason: MESSAGE_TOO_LARGE,
        bytes: skipped.bytes,
        maxMessageBytes: this.#max,
      };
      this.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: ProtocolErrorCode.InternalError, message: reason, data },
      });
    } else if (kind === 'request') {
      const refusal = `the client refused a request of ${skipped.bytes} bytes, over its limit of ${this.#max}`;
      this.send({
        jsonrpc: '2.0',
        id,
        error: { code: ProtocolErrorCode.InvalidRequest, message: refusal },
      }).catch(() => undefined);
    }
  }
}

/** The ID of a parsed line shaped as a response (`id` with `result` or `error`, no `method`). */
function answeredId(parsed: unknown): string | number | undefined {
  if (typeof parsed !== 'object' || parsed === null || 'method' in parsed) return undefined;
  if (!('result' in parsed) && !('error' in parsed)) return undefined;
  const id = (parsed as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

const UTF8 = new TextDecoder();
const ID = /-?\d+|"(?:[^"\\]|\\.)*"/y;
const KEY = /"((?:[^"\\]|\\.)*)"\s*:\s*/y;
// The ID as the last member of the outermost object, from the line's end.
const LAST_ID = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * What an oversized line is, read off its ends: a response (`result` or `error` among the
 * top-level members its head shows) or a request (`method`), and its ID when the head shows it or
 * the line ends with it (`{"result":…,"jsonrpc":"2.0","id":7}`, as the TypeScript SDK
 * serialises); unknown when the head shows neither kind.
 */
function describeLine(
  head: string,
  tail: string,
): { kind: 'response' | 'request' | undefined; id: string | number | undefined } {
  const keys = new Set<string>();
  let headId: string | undefined;
  let depth = 0;
  for (let i = 0; i < head.length;) {
    const char = head[i];
    if (char === '"') {
      KEY.lastIndex = i;
      const key = depth === 1 ? KEY.exec(head) : null;
      if (key === null) {
        i = stringEnd(head, i);
        continue;
      }
      const name = key[1] ?? '';
      keys.add(name);
      i = KEY.lastIndex;
      ID.lastIndex = i;
      if (name === 'id') headId = ID.exec(head)?.[0];
      continue;
    }
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
    i++;
  }
  const kind = keys.has('method')
    ? 'request'
    : keys.has('result') || keys.has('error')
      ? 'response'
      : undefined;
  const raw = headId ?? LAST_ID.exec(tail)?.[1];
  if (raw === undefined) return { kind, id: undefined };
  return { kind, id: raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw) };
}

/** Where the JSON string opening at `start` ends (past its closing quote), or the text's end. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}
