import { optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import type { CodeModeOptions, CodeRunOptions } from './types.js';
import { CodeModeError } from './errors.js';

// The options of one run and of one search, checked as createCodeMode's are: a bound passed to
// `run` (`{ timeoutMs: 100 }`) was ignored, and the run had code mode's own.

const RUN_KEYS = optionKeys<CodeRunOptions>({ signal: true, meta: true, sessionKey: true });
const SEARCH_KEYS = ['limit', 'signal'];

/** Every key of {@link CodeModeOptions}: the compiler keeps the list and the type in step. */
export const CODE_MODE_OPTION_KEYS = optionKeys<CodeModeOptions>({
  timeoutMs: true,
  memoryLimitBytes: true,
  maxStackBytes: true,
  maxToolCalls: true,
  maxSearches: true,
  maxConcurrentCalls: true,
  maxLogBytes: true,
  maxResultBytes: true,
  filter: true,
  maxConcurrentRuns: true,
});
const BOUND_KEYS = CODE_MODE_OPTION_KEYS.filter((key) => key !== 'filter');

/** Where each bound a caller may pass to `run` is set instead. */
const BOUNDS = Object.fromEntries(
  BOUND_KEYS.map((key) => [
    key,
    `bounds are set per code mode: createCodeMode(source, { ${key} })`,
  ]),
);

/**
 * Refuses an option of `code.run` it does not take.
 *
 * @throws {CodeModeError} `invalid_argument`, naming the option and what to do instead.
 */
export function checkRunOptions(options: unknown): void {
  try {
    refuseUnknownOptions(options, RUN_KEYS, 'code.run', { instead: BOUNDS });
  } catch (error) {
    if (!ToolError.isInstance(error)) throw error;
    throw new CodeModeError(error.code, error.message);
  }
}

/**
 * Refuses an option of `code.search` it does not take.
 *
 * @throws {ToolError} `invalid_argument`, naming the option.
 */
export function checkSearchOptions(options: unknown): void {
  refuseUnknownOptions(options, SEARCH_KEYS, 'code.search');
}
