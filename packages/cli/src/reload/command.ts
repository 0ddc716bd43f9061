import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { ConnectorConfig } from '../config.js';

/**
 * Why a stdio server's command cannot start, when it plainly cannot: a path that is not an
 * executable file, or a bare name on no directory of `PATH`. `undefined` when it may start (an
 * HTTP server, or a command that is there); whatever else goes wrong shows when it connects.
 */
export function missingCommand(
  connector: ConnectorConfig,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const { source } = connector;
  if (typeof source !== 'object' || !('command' in source)) return undefined;
  const { command } = source;
  const cwd = source.cwd ?? process.cwd();
  if (isAbsolute(command) || command.includes('/')) {
    return executable(resolve(cwd, command))
      ? undefined
      : `command "${command}" is not an executable file`;
  }
  const path = source.env?.PATH ?? env.PATH ?? '';
  const found = path
    .split(delimiter)
    .some((dir) => dir !== '' && executable(join(resolve(cwd, dir), command)));
  return found ? undefined : `command "${command}" is not on PATH`;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
