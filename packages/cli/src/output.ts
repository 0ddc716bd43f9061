// The errors module alone: the rest of the tool model loads the MCP SDK's schemas.
import { ToolError, type ToolErrorCode } from '@toolplane/toolmodel/errors';
import { showControls } from '@toolplane/toolmodel/text';
import { CommanderError } from 'commander';
import pc from 'picocolors';
import type { Secrets } from './secrets.js';
import { drawTable } from './table.js';

type Colors = ReturnType<typeof pc.createColors>;

/** A stream the CLI writes to: `process.stdout`, or anything with `write` (tests). */
export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

/** Options of {@link Output}. */
export interface OutputOptions {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Machine output: JSON on stdout, no tables, colours or spinners. */
  readonly json: boolean;
  /** Environment, for `NO_COLOR`, `FORCE_COLOR`, and `CI` and `TERM` (no spinner). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets?: Secrets;
}

/** A running spinner; see {@link Output.spinner}. */
export interface Spinner {
  update(text: string): void;
  stop(): void;
}

/**
 * Where everything the CLI prints goes: results to stdout (tables for people, JSON with
 * `--json`), messages to stderr, colour only on a terminal and never with `NO_COLOR`, and
 * every known secret masked.
 */
export class Output {
  readonly json: boolean;
  /** Colours for stdout. */
  readonly color: Colors;
  /** Colours for stderr. */
  readonly errColor: Colors;
  readonly #stdout: OutputStream;
  readonly #stderr: OutputStream;
  readonly #env: Readonly<Record<string, string | undefined>>;
  #secrets: Secrets | undefined;

  constructor(options: OutputOptions) {
    this.json = options.json;
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    this.#secrets = options.secrets;
    this.#env = options.env;
    this.color = pc.createColors(!options.json && colorWanted(options.stdout, options.env));
    this.errColor = pc.createColors(colorWanted(options.stderr, options.env));
  }

  /** Masks these secrets in everything printed from now on. */
  useSecrets(secrets: Secrets): void {
    this.#secrets = secrets;
  }

  /** Masks known secrets in `text`. */
  redact(text: string): string {
    return this.#secrets?.redact(text) ?? text;
  }

  /** Writes a line of results to stdout. */
  out(text = ''): void {
    this.#stdout.write(`${this.redact(text)}\n`);
  }

  /**
   * Writes what an upstream or a program answered (a tool's result, a resource's text, a
   * rendered prompt) to stdout: on a terminal its control characters are shown, not obeyed (a
   * server's result could retitle the window, move the cursor or write the clipboard); piped or
   * redirected, the text goes as it came, so a file gets what the tool sent. A newline ends it
   * unless it ends with one already.
   */
  result(text: string): void {
    const shown = this.redact(this.#stdout.isTTY === true ? showControls(text) : text);
    this.#stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
  }

  /** Writes a value as JSON to stdout. */
  data(value: unknown): void {
    this.out(JSON.stringify(value, null, 2));
  }

  /** Writes a message for people to stderr. */
  say(text: string): void {
    this.#stderr.write(`${this.redact(text)}\n`);
  }

  /** Writes an aligned table to stdout; an empty table prints `empty` instead. */
  table(head: readonly string[], rows: readonly (readonly string[])[], empty: string): void {
    if (rows.length === 0) {
      this.out(this.color.dim(empty));
      return;
    }
    const text = drawTable(
      head.map((h) => this.color.bold(h)),
      rows,
      columns(this.#stdout) === undefined ? undefined : widths(head, rows, this.#stdout),
    );
    this.out(text.replace(/[ \t]+$/gm, ''));
  }

  /**
   * A spinner on stderr while a long call runs; silent unless stderr is a usable terminal (a TTY
   * with a width, not CI, not `TERM=dumb`).
   */
  spinner(spinnerText: string): Spinner {
    if (this.json || !spinnerWanted(this.#stderr, this.#env))
      return { update: () => undefined, stop: () => undefined };
    // ora (with its spinners and its terminal helpers) loads only when a spinner will be drawn:
    // a command's start does not wait for it, and the spinner appears once it has loaded.
    let text = spinnerText;
    let spinner: { text: string; stop(): unknown } | undefined;
    let stopped = false;
    void import('ora').then(
      ({ default: ora }) => {
        if (stopped) return;
        spinner = ora({
          text,
          stream: this.#stderr as NodeJS.WritableStream,
          discardStdin: false,
        }).start();
      },
      () => undefined,
    );
    return {
      update: (next) => {
        text = this.redact(next);
        if (spinner !== undefined) spinner.text = text;
      },
      stop: () => {
        stopped = true;
        spinner?.stop();
      },
    };
  }

  /**
   * Reports a failure: one line on stderr (and `{ error }` on stdout with `--json`, with
   * `details` beside its code and message), and returns the exit code it calls for.
   */
  fail(error: unknown, details: Readonly<Record<string, unknown>> = {}): number {
    const { code, message } = describeError(error);
    if (this.json) this.data({ error: { code, message: this.redact(message), ...details } });
    // The message may carry an upstream's words: shown, never obeyed by the terminal.
    this.say(`${this.errColor.red('error')} ${showControls(this.redact(message))}`);
    return exitCode(error);
  }
}

function colorWanted(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

/**
 * A spinner redraws its line by the terminal's width: on a terminal that reports 0 columns (a
 * `script` session without a real one) ora divides by it and floods the output, so spin only
 * where there is a width to draw in and a person watching.
 */
function spinnerWanted(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0') return false;
  if (env.TERM === 'dumb') return false;
  return columns(stream) !== undefined;
}

function columns(stream: OutputStream): number | undefined {
  const width = (stream as { columns?: number }).columns;
  return stream.isTTY === true && typeof width === 'number' && width > 0 ? width : undefined;
}

/** Column widths that fit the terminal: the last column (descriptions) takes what is left. */
function widths(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  stream: OutputStream,
): number[] {
  const total = columns(stream) ?? 120;
  const natural = head.map(
    (h, i) => Math.max(h.length, ...rows.map((row) => visible(row[i] ?? '').length)) + 2,
  );
  const fixed = natural.slice(0, -1).reduce((sum, w) => sum + w, 0);
  const last = Math.max(20, Math.min(natural.at(-1) ?? 20, total - fixed - 1));
  return [...natural.slice(0, -1), last];
}

// eslint-disable-next-line no-control-regex -- ANSI colour sequences are control characters
const ANSI = /\u001b\[[0-9;]*m/g;
function visible(text: string): string {
  return text.replace(ANSI, '');
}

/** A duration for people: `840 µs`, `12 ms`, `1.4 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `MCP error -32602: ` as the MCP SDK prefixes every JSON-RPC error it raises. */
const MCP_PREFIX = /(MCP error -?\d+: )(?:MCP error -?\d+: )+/g;

/**
 * The code and one-line message of any error; schema errors name each argument and why. A
 * message wrapped by the MCP SDK more than once (a gateway behind a gateway) carries its
 * `MCP error N:` prefix once.
 */
export function describeError(error: unknown): { code: ToolErrorCode; message: string } {
  if (!ToolError.isInstance(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return { code: 'internal', message: oncePrefixed(message.split('\n')[0] ?? message) };
  }
  let message = oncePrefixed(error.message.replace(/\s*\n\s*/g, ' '));
  const problems = (error.errors ?? [])
    .map((e) => `${e.path === '' ? '(input)' : e.path}: ${e.message}`)
    .filter((problem) => !message.includes(problem.slice(problem.indexOf(': ') + 2)));
  if (problems.length > 0) message += ` (${problems.join('; ')})`;
  return { code: error.code, message };
}

function oncePrefixed(message: string): string {
  return message.replace(MCP_PREFIX, '$1');
}

/**
 * The process exit code for an error (or an error code), the one place the CLI decides it:
 * 0 for `--help` and `--version`, 2 bad config or usage, 3 not found, 4 invalid arguments (a
 * schema's or the tool's own refusal of them), 5 a server or store that cannot be reached,
 * 1 anything else.
 */
export function exitCode(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  if (typeof error === 'string') return exitCodeOf(error as ToolErrorCode);
  if (!ToolError.isInstance(error)) return 1;
  // A refusal wrapped by the run's `execution` error keeps its code as the cause, and so does an
  // MCP server's InvalidParams error.
  if (error.code === 'execution' && ToolError.isInstance(error.cause)) {
    const cause = error.cause.code;
    if (cause === 'invalid_argument' || cause === 'validation') return 4;
    if (cause !== 'execution') return exitCodeOf(cause);
  }
  if (error.code === 'execution' && mcpCode(error.cause) === INVALID_PARAMS) return 4;
  // A tool's own refusal reaches the caller with its code (toolrun keeps a handler's
  // invalid_argument as it is): one that names its tool refused the tool's arguments, not the
  // command line's.
  if (error.code === 'invalid_argument' && error.toolId !== undefined) return 4;
  return exitCodeOf(error.code);
}

/** JSON-RPC's InvalidParams: what an MCP server answers a call whose arguments it refuses. */
const INVALID_PARAMS = -32602;

function mcpCode(error: unknown): unknown {
  return error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
}

function exitCodeOf(code: ToolErrorCode): number {
  switch (code) {
    case 'invalid_config':
    case 'invalid_argument':
    case 'invalid_prompt':
    case 'invalid_resource':
      return 2;
    case 'not_found':
    case 'tool_not_found':
      return 3;
    case 'validation':
      return 4;
    case 'connector_unavailable':
    case 'timeout':
    case 'store_error':
      return 5;
    default:
      return 1;
  }
}
