import { checkDuration, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';

/** What the options of this package's stores may hold; each store takes some of them. */
interface SqliteOptionValues {
  readonly path?: unknown;
  readonly busyTimeoutMs?: unknown;
  readonly pollIntervalMs?: unknown;
  readonly synchronous?: unknown;
  readonly readOnly?: unknown;
}

// Names people reach for by analogy with other SQLite libraries.
const INSTEAD: Readonly<Record<string, string>> = {
  file: 'did you mean "path"?',
  filename: 'did you mean "path"?',
  database: 'did you mean "path"?',
  timeout: 'did you mean "busyTimeoutMs"?',
  readonly: 'did you mean "readOnly"?',
};

/**
 * Checks the options a store of this package was opened with, before any file is touched: a
 * misspelled `path` used to be ignored, and the store opened the default file instead, so data
 * went where the caller would never look for it.
 *
 * @param known The option keys of `opener`.
 * @throws {ToolError} `invalid_argument` for an unknown key, a `path` that is not a string, a
 * `busyTimeoutMs` or `pollIntervalMs` that is not a whole number of milliseconds from 0 to
 * 2^31 − 1, a `synchronous` other than `full` or `normal`, or a `readOnly` that is not a boolean.
 */
export function checkSqliteOptions(
  options: unknown,
  known: readonly string[],
  opener: string,
): void {
  refuseUnknownOptions(options, known, opener, { instead: INSTEAD });
  const { path, busyTimeoutMs, pollIntervalMs, synchronous, readOnly } =
    options as SqliteOptionValues;
  if (path !== undefined && typeof path !== 'string') {
    throw new ToolError(
      'invalid_argument',
      `${opener}: path must be a file path string, got ${typeof path}`,
    );
  }
  for (const [key, value] of [
    ['busyTimeoutMs', busyTimeoutMs],
    ['pollIntervalMs', pollIntervalMs],
  ] as const) {
    if (value !== undefined) checkDuration(value, `${opener}: ${key}`, { zero: true, whole: true });
  }
  if (synchronous !== undefined && synchronous !== 'full' && synchronous !== 'normal') {
    throw new ToolError(
      'invalid_argument',
      `${opener}: synchronous must be "full" or "normal", got ${typeof synchronous === 'string' ? JSON.stringify(synchronous.slice(0, 40)) : typeof synchronous}`,
    );
  }
  if (readOnly !== undefined && typeof readOnly !== 'boolean') {
    throw new ToolError(
      'invalid_argument',
      `${opener}: readOnly must be true or false, got ${typeof readOnly}`,
    );
  }
}
