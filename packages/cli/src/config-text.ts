import { createRequire } from 'node:module';
import { basename, extname } from 'node:path';
// The errors module alone: the early start of the servers (prestart.ts) reads the config
// through this file before the toolkit, or the rest of the tool model, loads.
import { ToolError } from '@toolplane/toolmodel/errors';
import { parseJson } from './config-plain.js';

export { substitute } from './config-plain.js';

/**
 * A config file's text as data: JSON for a `.json` file, YAML (with unique keys) otherwise.
 *
 * @throws {ToolError} `invalid_config` naming the file (and for YAML the line) and the problem.
 */
export function parseText(text: string, file: string): unknown {
  const where = basename(file);
  if (extname(file).toLowerCase() === '.json') return parseJson(text, file);
  // The YAML parser loads for a YAML config only: a JSON one never needs it.
  const { parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = document.errors[0];
  if (error !== undefined) {
    const at = error.linePos?.[0];
    const line = at === undefined ? '' : `:${at.line}:${at.col}`;
    // The parser's first line ends with the position, already said in front: said once.
    const problem = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new ToolError('invalid_config', `${where}${line}: not valid YAML: ${problem}`, {
      cause: error,
    });
  }
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    // An alias expanded past the bound (a "billion laughs" file), or another problem of the data.
    throw new ToolError(
      'invalid_config',
      `${where}: not a config the YAML parser will expand: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
