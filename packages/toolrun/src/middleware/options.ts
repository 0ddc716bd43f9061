import { optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import type { RunChainOptions } from '../runner/types.js';
import type { RunOptions, RunStreamOptions } from '../types.js';

/** Throws `invalid_argument` unless `value` is a finite number above zero. */
export function checkPositive(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ToolError(
      'invalid_argument',
      `${what} must be a positive number, got ${String(value)}`,
    );
  }
}

/** The keys each call method takes: the compiler keeps these lists and the types in step. */
const RUN_OPTION_KEYS = {
  run: optionKeys<RunOptions>({ signal: true, onProgress: true, meta: true, idempotent: true }),
  runStream: optionKeys<RunStreamOptions>({ signal: true, meta: true, idempotent: true }),
  runChain: optionKeys<RunChainOptions>({ signal: true, onProgress: true }),
} as const;

// What a key guessed from another method wants instead.
const INSTEAD: Readonly<Record<keyof typeof RUN_OPTION_KEYS, Readonly<Record<string, string>>>> = {
  run: {},
  runStream: {
    onProgress: 'runStream yields progress as events of the stream ({ type: "progress" })',
  },
  runChain: {},
};

/**
 * Throws `invalid_argument` unless `options` (of `run`, `runStream` or `runChain`) is absent or
 * an object with only the keys that method takes, whose `signal` is absent or an `AbortSignal`
 * and whose `onProgress` is absent or a function: a wrong one would otherwise fail deep inside,
 * or be ignored and never cancel, and a misspelled key (`sigal`, `onprogress`) would be ignored
 * without a word.
 */
export function checkRunOptions(options: unknown, method: keyof typeof RUN_OPTION_KEYS): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ToolError('invalid_argument', `${method} options must be an object`);
  }
  refuseUnknownOptions(options, RUN_OPTION_KEYS[method], method, { instead: INSTEAD[method] });
  const { signal, onProgress } = options as { signal?: unknown; onProgress?: unknown };
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new ToolError('invalid_argument', `${method} options.signal must be an AbortSignal`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new ToolError('invalid_argument', `${method} options.onProgress must be a function`);
  }
}

// By shape, so a signal of another realm or a polyfill passes too.
function isAbortSignal(value: unknown): boolean {
  const signal = value as Partial<AbortSignal> | null;
  return (
    typeof value === 'object' &&
    signal !== null &&
    typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function' &&
    typeof signal.removeEventListener === 'function'
  );
}
