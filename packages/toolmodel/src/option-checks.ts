import { ToolError, type ToolErrorCode } from './errors.js';
import { didYouMean } from './suggest.js';
import { quoted, shownValue } from './text.js';

/**
 * The longest delay a timer keeps: 2^31 − 1 ms, about 24.8 days. Node and browsers fire a timer
 * set for longer at once (Node after 1 ms), so a timeout past it would end every call at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** How a failed option check is reported. */
export interface OptionCheckOptions {
  /** The error's code (default `invalid_argument`; configuration read from a file says `invalid_config`). */
  readonly code?: ToolErrorCode;
}

/** Options of {@link refuseUnknownOptions}. */
export interface UnknownOptionsCheck extends OptionCheckOptions {
  /** Keys people pass by analogy with other libraries, each with where that wish goes instead. */
  readonly instead?: Readonly<Record<string, string>>;
}

/**
 * The keys of an options type, for {@link refuseUnknownOptions}: given an object with every key
 * of `T` set to `true`, the compiler keeps the list and the type in step (a key added to the type
 * and not here fails to compile, and so does one listed here that the type lacks).
 */
export function optionKeys<T>(keys: {
  readonly [K in keyof Required<T>]: true;
}): readonly string[] {
  return Object.freeze(Object.keys(keys));
}

/**
 * Refuses an options object with an own key outside `known`. From JavaScript, a spread of a
 * wider object or a key guessed by analogy, a misspelled option would otherwise be ignored:
 * `retry({ attempts: 5 })` would retry twice, as if told nothing, and say nothing.
 *
 * @param where What the options belong to, as the caller wrote it: `retry`, `addConnector`.
 * @throws {ToolError} `invalid_argument` (or `check.code`) for options that are not an object,
 * or naming the key with the nearest known one, or where to go instead, or the known keys.
 */
export function refuseUnknownOptions(
  options: unknown,
  known: readonly string[],
  where: string,
  check: UnknownOptionsCheck = {},
): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ToolError(
      check.code ?? 'invalid_argument',
      `${where}: options must be an object, got ${shownValue(options)}`,
    );
  }
  // `for…in` allocates nothing (`Object.keys` would make an array): a call's options are
  // checked on every call. Inherited keys are skipped, as `Object.keys` would skip them.
  for (const key in options) {
    if (known.includes(key) || !Object.hasOwn(options, key)) continue;
    // Own keys only: `constructor` or `toString` must not find Object.prototype's.
    const instead =
      check.instead !== undefined && Object.hasOwn(check.instead, key)
        ? check.instead[key]
        : undefined;
    const near = didYouMean(key, known) ?? longerName(key, known);
    const hint =
      instead ??
      (near === undefined
        ? known.length === 0
          ? 'it takes no options'
          : `known options: ${known.join(', ')}`
        : `did you mean "${near}"?`);
    throw new ToolError(
      check.code ?? 'invalid_argument',
      `${where}: unknown option ${quoted(key, 60)}; ${hint}`,
    );
  }
}

/**
 * The one known key that `key` begins (`maxBody` of `maxBodyBytes`, `timeout` of `timeoutMs`):
 * a name with its unit or its noun left off, too far in edits for {@link didYouMean}.
 */
function longerName(key: string, known: readonly string[]): string | undefined {
  if (key.length < 3) return undefined;
  const lowered = key.toLowerCase();
  const longer = known.filter((name) => name.toLowerCase().startsWith(lowered));
  return longer.length === 1 ? longer[0] : undefined;
}

/** Options of {@link checkDuration}. */
export interface DurationCheck extends OptionCheckOptions {
  /** Whether 0 is accepted (an option where 0 turns something off, or means "do not wait"). Default false. */
  readonly zero?: boolean;
  /** Whether it must be a whole number of milliseconds (what SQL settings take). Default false. */
  readonly whole?: boolean;
}

/**
 * Checks a duration in milliseconds that will be handed to a timer: a finite number above 0
 * (or 0 with `zero`; a whole one with `whole`) and at most {@link MAX_TIMER_MS}.
 *
 * @param what The option as the caller wrote it: `timeout(ms)`, `connectorDefaults.pingIntervalMs`.
 * @throws {ToolError} `invalid_argument` (or `check.code`) saying what it must be and what it got.
 */
export function checkDuration(value: unknown, what: string, check: DurationCheck = {}): void {
  if (
    typeof value === 'number' &&
    value <= MAX_TIMER_MS &&
    (value > 0 || (check.zero === true && value === 0)) &&
    (check.whole !== true || Number.isInteger(value))
  ) {
    return;
  }
  const kind = check.whole === true ? 'a whole number' : 'a number';
  const least = check.zero === true ? '0 or more' : 'above 0';
  throw new ToolError(
    check.code ?? 'invalid_argument',
    `${what} must be ${kind} of milliseconds ${least}, at most ${MAX_TIMER_MS} (about 24.8 days), got ${shownValue(value)}`,
  );
}

/** Options of {@link checkCount}. */
export interface CountCheck extends OptionCheckOptions {
  /** The least it may be (default 1). */
  readonly min?: number;
  /** The most it may be (default none: any safe integer). */
  readonly max?: number;
  /** What it counts, when the option's name does not say: `bytes`, `characters`. */
  readonly unit?: string;
}

/**
 * Checks a count: a whole number (a safe integer, never `NaN` or `Infinity`) from `check.min`
 * (default 1) to `check.max`. A bound, a limit, a cache size or a depth that is `NaN`, 0 or a
 * fraction would otherwise bound nothing, refuse everything, or fail later far from where it was
 * given.
 *
 * @param what The option as the caller wrote it: `maxCallDepth`, `authFailureLimit.windowMs`.
 * @throws {ToolError} `invalid_argument` (or `check.code`) saying what it must be and what it got.
 */
export function checkCount(
  value: unknown,
  what: string,
  check: CountCheck = {},
): asserts value is number {
  const min = check.min ?? 1;
  const { max } = check;
  if (
    typeof value === 'number' &&
    Number.isSafeInteger(value) &&
    value >= min &&
    (max === undefined || value <= max)
  ) {
    return;
  }
  const unit = check.unit === undefined ? '' : ` of ${check.unit}`;
  const range =
    max === undefined ? `${String(min)} or more` : `from ${String(min)} to ${String(max)}`;
  throw new ToolError(
    check.code ?? 'invalid_argument',
    `${what} must be a whole number${unit}, ${range}, got ${shownValue(value)}`,
  );
}

/**
 * An optional count option: `fallback` when `value` is left out (`undefined`), else `value`
 * once {@link checkCount} has passed it.
 *
 * @param what The option as the caller wrote it, as for {@link checkCount}.
 * @throws {ToolError} `invalid_argument` (or `check.code`) as {@link checkCount} does.
 */
export function countOr<F extends number | undefined>(
  value: unknown,
  fallback: F,
  what: string,
  check: CountCheck = {},
): number | F {
  if (value === undefined) return fallback;
  checkCount(value, what, check);
  return value;
}
