import { ToolError, type ToolErrorCode } from '../errors.js';

/**
 * The {@link ToolErrorCode} that `run` throws, so a test can assert on the code of a failure:
 * `expect(errorCodeOf(() => parseToolId('a:b:c:d'))).toBe('invalid_tool_id')`.
 *
 * Returns `undefined` when `run` returns. Anything thrown that is not a {@link ToolError} is
 * thrown on unchanged, so the test fails on the real error rather than on a stand-in code. For
 * work that may reject, use {@link rejectionCodeOf}.
 *
 * @throws ToolError `invalid_argument` when `run` returns a promise, whose outcome this cannot see.
 */
export function errorCodeOf(run: () => unknown): ToolErrorCode | undefined {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    return codeOrRethrow(error);
  }
  if (isPromiseLike(result)) {
    // Handled here so it cannot surface as an unhandled rejection; the throw below is the failure.
    result.then(undefined, () => undefined);
    throw new ToolError(
      'invalid_argument',
      'errorCodeOf: run returned a promise, whose outcome a synchronous check cannot see; use rejectionCodeOf',
    );
  }
  return undefined;
}

/**
 * The {@link ToolErrorCode} that `run` rejects with (a promise, or a function that returns one
 * or throws synchronously), so a test can assert on the code of an async failure:
 * `expect(await rejectionCodeOf(store.listPrompts({ signal }))).toBe('cancelled')`.
 *
 * Resolves to `undefined` when the work succeeds. A rejection or throw that is not a
 * {@link ToolError} rejects this promise with that same error. For synchronous work,
 * {@link errorCodeOf} needs no `await`.
 */
export async function rejectionCodeOf(
  run: (() => unknown) | PromiseLike<unknown>,
): Promise<ToolErrorCode | undefined> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (error) {
    return codeOrRethrow(error);
  }
  return undefined;
}

/**
 * The message of the {@link ToolError} with `code` that `run` throws, so a test can assert on
 * what a user is told: `expect(errorMessageOf(() => retry({ attempts: 5 }), 'invalid_argument'))`.
 * Anything else thrown (another error, another code) is thrown on unchanged.
 *
 * @throws Error when `run` returns (a promise included: use {@link rejectionCodeOf} for those).
 */
export function errorMessageOf(run: () => unknown, code: ToolErrorCode): string {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === code) return error.message;
    throw error;
  }
  if (isPromiseLike(result)) result.then(undefined, () => undefined);
  throw new Error(
    `expected a ToolError with code ${code}; run ${isPromiseLike(result) ? 'returned a promise' : 'returned'}`,
  );
}

function codeOrRethrow(error: unknown): ToolErrorCode {
  if (ToolError.isInstance(error)) return error.code;
  throw error;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
