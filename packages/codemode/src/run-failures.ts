// What a run ended with, in words a program's author (or model) can act on: QuickJS's errors
// with their line in the program, the sandbox's bounds named with the option that sets them,
// and the checks on the value a program returns.

import { OPENING, PROGRAM_FILE } from './prelude.js';
import type { Outcome, SandboxLimits } from './protocol.js';

/** A run that did not return a value. */
export type Failure = Extract<Outcome, { ok: false }>;

// Errors of QuickJS itself that mean a bound of the sandbox was reached, not a bug of the program.
const EXHAUSTED = /^(out of memory|stack overflow|string too long)$/;

// How deep the program's value may nest. It is parsed and written as JSON again on the host
// (run_code's answer, a gateway's response), whose JSON.stringify recurses and runs out of stack
// a few thousand levels down, less on a deep stack; no real value comes near this.
const MAX_VALUE_DEPTH = 1_000;

const AT_PROGRAM = new RegExp(`${PROGRAM_FILE.replace('.', '\\.')}:(\\d+):(\\d+)`);

/** A size as a program's author reads it: whole MiB or KiB where it is one, else bytes. */
export function bytes(size: number): string {
  if (size % (1 << 20) === 0) return `${String(size / (1 << 20))} MiB`;
  if (size % (1 << 10) === 0) return `${String(size / (1 << 10))} KiB`;
  return `${String(size)} bytes`;
}

/** A failure of the worker's own code (not the program's) as a run's outcome. */
export function internal(message: string): Failure {
  return { ok: false, code: 'internal', message };
}

/** QuickJS's word for a bound it reached, with the bound: what a program (or model) can act on. */
export function exhaustedMessage(message: string, limits: SandboxLimits): string {
  const { memoryLimitBytes, maxStackBytes } = limits;
  switch (message) {
    case 'out of memory':
      return `out of memory: the program needs more than its ${bytes(memoryLimitBytes)} of memory (memoryLimitBytes); keep less at once`;
    case 'stack overflow':
      return `stack overflow: the program nests deeper than its ${bytes(maxStackBytes)} of stack allow (maxStackBytes); recurse less deeply`;
    default:
      return `${message}: a string of the program passed QuickJS's bound on a string's length`;
  }
}

/**
 * Where `program` ends: its last line (a newline at the very end closes that line rather than
 * opening another) and the column just past its text.
 */
function endOf(program: string): { line: number; column: number } {
  const lines = program.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const last = (lines.at(-1) ?? '').replace(/\r$/, '');
  return { line: lines.length, column: last.length + 1 };
}

/**
 * An error thrown in `program` (its name, message and stack as QuickJS gave them) as a failure:
 * a bound it reached as `resource_exhausted`, else `code` with the line and column in the
 * program where it was thrown, when the stack says.
 */
export function programFailure(
  error: { name: string; message: string; stack: string },
  code: Failure['code'],
  program: string,
  limits: SandboxLimits,
): Failure {
  const { name, message, stack } = error;
  if (EXHAUSTED.test(message)) {
    return { ok: false, code: 'resource_exhausted', message: exhaustedMessage(message, limits) };
  }
  const text = name === '' ? message : `${name}: ${message}`;
  const at = AT_PROGRAM.exec(stack);
  if (at === null) return { ok: false, code, message: text };
  let line = Number(at[1]);
  let column = line === 1 ? Math.max(1, Number(at[2]) - OPENING.length) : Number(at[2]);
  // The wrapper's closing follows the program on a line of its own: an error found there (a
  // program that ends too early, `return (`) is at the end of the program.
  const end = endOf(program);
  if (line > end.line) ({ line, column } = end);
  return { ok: false, code, message: `${text} (line ${String(line)})`, line, column };
}

/** Whether JSON text `json` nests arrays and objects deeper than `max` levels. */
function nestsDeeperThan(json: string, max: number): boolean {
  let depth = 0;
  let quoted = false;
  for (let at = 0; at < json.length; at++) {
    const c = json.charCodeAt(at);
    if (quoted) {
      // A backslash escapes the next character, a quote among them.
      if (c === 0x5c) at++;
      else if (c === 0x22) quoted = false;
    } else if (c === 0x22) quoted = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Why the program's value (JSON text) cannot be its answer, or undefined when it can. */
export function valueFailure(json: string, limits: SandboxLimits): Failure | undefined {
  if (Buffer.byteLength(json) > limits.maxResultBytes) {
    return {
      ok: false,
      code: 'resource_exhausted',
      message: `the program's value is larger than ${bytes(limits.maxResultBytes)} of JSON (maxResultBytes); return only what is needed`,
    };
  }
  if (nestsDeeperThan(json, MAX_VALUE_DEPTH)) {
    return {
      ok: false,
      code: 'resource_exhausted',
      message: `the program's value nests arrays and objects deeper than ${String(MAX_VALUE_DEPTH)} levels; return a flatter value`,
    };
  }
  return undefined;
}
