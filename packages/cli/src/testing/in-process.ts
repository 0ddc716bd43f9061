// The CLI run in the test's own process through `runCli`, for tests of arguments, exit codes and
// output: the same code a child runs, without starting Node and compiling the source per run.
// Children stay for what only a process shows (the bin, signals, a terminal, `serve`).
import { Readable } from 'node:stream';
import { runCli } from '../cli.js';
import type { Ran } from './cli-process.js';

/** Options of {@link runInProcess}. */
export interface InProcessOptions {
  /** The working directory. */
  readonly cwd: string;
  /** Added to this process's environment (and `NO_COLOR=1`), as a child would get it. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What the command reads as standard input (`key=@-`); none by default. */
  readonly input?: string;
  readonly signal?: AbortSignal;
  /** Whether standard output is a terminal (`isTTY`), as a person's shell would have it. */
  readonly tty?: boolean;
}

/** Runs `toolplane ...args` in process; resolves with its exit code and what it printed. */
export async function runInProcess(
  args: readonly string[],
  options: InProcessOptions,
): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: options.tty === true },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: Readable.from(options.input === undefined ? [] : [options.input]),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { code, signal: null, stdout, stderr };
}
