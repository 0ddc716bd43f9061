// The CLI as its tests drive it: a child process started from the source or from the committed
// bin, its output awaited by pattern, its exit awaited with a bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledEntry, entryArgs } from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** A program and its leading arguments. */
export type Command = readonly [string, ...string[]];

/** The package's committed entry, as the `toolplane` bin and `pnpm toolplane` run it. */
export const binEntry = fileURLToPath(new URL('../../bin/toolplane.js', import.meta.url));

const sourceEntry = fileURLToPath(new URL('../bin.ts', import.meta.url));

/**
 * The committed bin run by this Node; in a test run, the run's prebuilt bundle of the same source
 * it would compile (the bin's own start is proved by the `mcpServers` command `serve` prints).
 */
export const binCommand: Command = [process.execPath, bundledEntry(sourceEntry) ?? binEntry];

/**
 * The CLI's source: the test run's prebuilt bundle of it, or outside a test run the TypeScript
 * under tsx with the workspace's source condition.
 */
export const sourceCommand: Command = [process.execPath, ...entryArgs(sourceEntry)];

/** How {@link startCli} and {@link runCli} start the process. */
export interface CliOptions {
  /** The working directory. */
  readonly cwd: string;
  /** Added to this process's environment (and `NO_COLOR=1`). */
  readonly env?: Record<string, string>;
  /** The command and its leading arguments; {@link sourceCommand} by default. */
  readonly command?: Command;
  /** Whether the child gets a standard input pipe (default: none). */
  readonly stdin?: 'pipe' | 'ignore';
  /** Starts the child as a process group leader, to signal it with what it started. */
  readonly detached?: boolean;
  /** Runs the child as this user and group (this process must be root); as this user by default. */
  readonly user?: { readonly uid: number; readonly gid: number };
}

/** What a finished run printed and how it ended. */
export interface Ran {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts `command ...args` (the CLI by default) with its output piped. */
export function startCli(args: readonly string[], options: CliOptions): ChildProcess {
  const [command, ...rest] = options.command ?? sourceCommand;
  return spawn(command, [...rest, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
    ...options.user,
  });
}

/** Runs `command ...args` (the CLI by default) to its end; `input` is written to its stdin. */
export function runCli(
  args: readonly string[],
  options: Omit<CliOptions, 'stdin' | 'detached'> & { readonly input?: string },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, {
      ...options,
      stdin: options.input === undefined ? 'ignore' : 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The JSON a run printed on stdout, for assertions on whatever shape a command prints. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads its own shape
export function json(ran: Ran): any {
  return JSON.parse(ran.stdout);
}

/**
 * `stderr` without the lines saying a server is slow to start (`starting remote (still
 * starting…)`, start-progress.ts): on a loaded machine any start may run past the bound after
 * which the CLI says so, and that line is no failure.
 */
export function withoutStartProgress(stderr: string): string {
  return stderr.replace(/^starting \S+ \(.+…\)\n/gm, '');
}

/**
 * Resolves with the first match of `pattern` in what `child` prints on `stream` from now on;
 * rejects after `ms`, or when the child's output ends without a match.
 */
export function waitForOutput(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
  ms = 30_000,
): Promise<RegExpExecArray> {
  const source = child[stream];
  return new Promise((resolve, reject) => {
    let seen = '';
    const finish = (): void => {
      clearTimeout(timer);
      source?.off('data', onData);
      child.off('close', onClose);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`timed out waiting for ${String(pattern)}; so far:\n${seen.slice(-4000)}`));
    }, ms);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match === null) return;
      finish();
      resolve(match);
    };
    const onClose = (): void => {
      finish();
      reject(new Error(`ended before ${String(pattern)}; ${stream}:\n${seen.slice(-4000)}`));
    };
    source?.on('data', onData);
    child.once('close', onClose);
  });
}

/** {@link waitForOutput} on stderr, where the CLI says what it does. */
export function waitForStderr(
  child: ChildProcess,
  pattern: RegExp,
  ms = 30_000,
): Promise<RegExpExecArray> {
  return waitForOutput(child, 'stderr', pattern, ms);
}

/** `toolplane serve` over HTTP on a free port: the arguments most serve tests start with. */
export const SERVE_HTTP = ['serve', '--http', '--port', '0'] as const;

/** The URL `toolplane serve --http` prints once it serves. */
export const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/;

/** Resolves with the URL `toolplane serve --http` prints once it serves. */
export async function listeningUrl(child: ChildProcess, ms = 60_000): Promise<URL> {
  const [, url = ''] = await waitForStderr(child, LISTENING, ms);
  return new URL(url);
}

/** Resolves with the exit code once `child` has exited; rejects after `ms`. */
export function exited(child: ChildProcess, ms = 60_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`still running after ${ms} ms`));
    }, ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Sends `signal` (SIGKILL by default) to a child still running and waits for its exit. */
export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill(signal);
  await done;
}

/**
 * A fresh temporary directory for the calling file's tests (made before them, removed after);
 * the returned function gives its path once they run.
 */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `toolplane-${prefix}-`));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error('the temporary directory exists only while tests run');
    return dir;
  };
}

/** `serve --http` of config files written to the calling file's temporary directory. */
export interface ServedConfigs {
  /** The temporary directory: the configs are written there, and served from there. */
  readonly dir: () => string;
  /**
   * Writes `config` (an object as JSON, text as it is) to `<name>.json` and serves it over HTTP
   * on a free port. The child is stopped with SIGTERM after the test, so it ends the servers it
   * started.
   */
  serve(
    name: string,
    config: object | string,
    options?: Omit<CliOptions, 'cwd'>,
  ): Promise<{ child: ChildProcess; file: string }>;
}

/** {@link ServedConfigs} for the calling file's tests, in a {@link useTempDir} of `prefix`. */
export function useServedConfigs(prefix: string): ServedConfigs {
  const dir = useTempDir(prefix);
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => stop(child, 'SIGTERM')));
  });
  return {
    dir,
    async serve(name, config, options = {}) {
      const file = join(dir(), `${name}.json`);
      await writeFile(file, typeof config === 'string' ? config : JSON.stringify(config));
      const child = startCli([...SERVE_HTTP, '--config', file], { ...options, cwd: dir() });
      children.push(child);
      return { child, file };
    },
  };
}
