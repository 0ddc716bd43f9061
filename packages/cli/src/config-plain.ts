// The parts of reading a config file that need no parser library: a JSON file, and the
// `${NAME}` variables of any file. The early start of the servers (prestart.ts) reads a JSON
// config with these alone, before the YAML parser (config-text.ts) loads.
import { basename } from 'node:path';
import { ToolError } from '@toolplane/toolmodel/errors';
import type { Secrets } from './secrets.js';

/**
 * A JSON config file's text as data.
 *
 * @throws {ToolError} `invalid_config` naming the file, the line and column, and the problem.
 */
export function parseJson(text: string, file: string): unknown {
  // A byte-order mark, which Windows editors write at the start of a UTF-8 file, is no JSON.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    const { message, at } = jsonErrorAt(json, (error as Error).message);
    throw new ToolError('invalid_config', `${basename(file)}${at}: not valid JSON: ${message}`, {
      cause: error,
    });
  }
}

/**
 * `JSON.parse`'s message without its character offset, and where that is as `:line:column`
 * (1-based, as editors count), which is what a person can find in a file.
 */
function jsonErrorAt(text: string, raw: string): { message: string; at: string } {
  const found = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(raw);
  const offset =
    found !== null ? Number(found[1]) : /end of JSON input/.test(raw) ? text.length : undefined;
  if (offset === undefined) return { message: raw, at: '' };
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const message = found === null ? raw : raw.replace(found[0], '');
  return { message, at: `:${String(line)}:${String(column)}` };
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `value` with `${NAME}` and `${NAME:-default}` replaced in every string; the values substituted
 * become secrets.
 *
 * @throws {ToolError} `invalid_config` naming the key path of a variable that is not set.
 */
export function substitute(
  value: unknown,
  path: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  secrets: Pick<Secrets, 'add'>,
  where: string,
): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') {
        secrets.add(found);
        return found;
      }
      if (fallback !== undefined) return fallback;
      throw new ToolError(
        'invalid_config',
        `${where}: ${path.join('.')}: environment variable ${name} is not set; export it or write \${${name}:-default}`,
      );
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => substitute(item, [...path, String(i)], env, secrets, where));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        substitute(item, [...path, key], env, secrets, where),
      ]),
    );
  }
  return value;
}
