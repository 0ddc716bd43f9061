import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ToolError } from '@toolplane/toolmodel';

/**
 * The text of a file named on the command line, found from the working directory.
 *
 * @throws {ToolError} `invalid_argument` saying what the file was for (`what`: "the program
 * file", "--token-file"), the name as given, and why it could not be read, then `hint`.
 */
export async function readNamedFile(
  context: { readonly cwd: string; readonly signal: AbortSignal },
  file: string,
  what: string,
  hint = '',
): Promise<string> {
  try {
    return await readFile(resolve(context.cwd, file), { encoding: 'utf8', signal: context.signal });
  } catch (error) {
    throw new ToolError(
      'invalid_argument',
      `cannot read ${what} ${JSON.stringify(file)}: ${(error as Error).message}${hint}`,
      { cause: error },
    );
  }
}
