import type { ToolErrorCode } from '@toolplane/toolmodel';
import type { CodeMode } from '../types.js';
import { CodeModeError } from '../errors.js';

/**
 * How a run of `program` on `on` ended: `none` when it returned, else its error's code.
 *
 * @throws whatever the run threw that is not a {@link CodeModeError} (a bug, not an outcome).
 */
export async function codeOf(program: string, on: CodeMode): Promise<ToolErrorCode | 'none'> {
  try {
    await on.run(program);
    return 'none';
  } catch (error) {
    if (!(error instanceof CodeModeError)) throw error;
    return error.code;
  }
}

/**
 * The {@link CodeModeError} a run of `program` on `on` fails with.
 *
 * @throws an `Error` when the run returns, or fails with anything else.
 */
export async function failureOf(program: string, on: CodeMode): Promise<CodeModeError> {
  const error = await on.run(program).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (error instanceof CodeModeError) return error;
  throw new Error(`expected the run to fail with a CodeModeError, got ${String(error)}`);
}
