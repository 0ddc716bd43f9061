import type { ToolErrorCode } from '@toolplane/toolmodel';
import type { CodeMode } from '../code-mode.js';
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
