// Where the config file is: apart from config.ts, which loads the toolkit, so that the early
// start of the servers (prestart.ts) finds the same file without it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The file names {@link findConfigFile} looks for, in order. */
export const CONFIG_FILE_NAMES = [
  'toolplane.config.yaml',
  'toolplane.config.yml',
  'toolplane.config.json',
] as const;

/**
 * The config file in `dir`: the first of {@link CONFIG_FILE_NAMES} that exists, or `undefined`.
 */
export function findConfigFile(dir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const file = join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}
