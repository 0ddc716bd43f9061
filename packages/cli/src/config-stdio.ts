// How a config's stdio server becomes the command the connector spawns: one home for it, used by
// the full config load (config.ts) and by the early start of the servers (prestart.ts), which
// must agree to the byte for a started child to be adopted. Node built-ins only: the early start
// runs before anything heavy loads.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import process from 'node:process';

/** A config entry's stdio keys, as validated (`command` and `module` trimmed). */
export interface StdioEntry {
  readonly command?: string | undefined;
  readonly module?: string | undefined;
  readonly args?: readonly string[] | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly cwd?: string | undefined;
}

/** What a stdio server is spawned from. */
export interface StdioSpawnSource {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The spawn source of a stdio entry of a config file in `dir`: `cwd` relative to the file,
 * `module` run as `node <its bin>`. `undefined` when `module` names no installed package with a
 * bin.
 */
export function stdioSource(entry: StdioEntry, dir: string): StdioSpawnSource | undefined {
  const cwd = entry.cwd === undefined ? dir : resolve(dir, entry.cwd);
  let command = entry.command ?? '';
  let args = entry.args ?? [];
  if (entry.module !== undefined) {
    const bin = resolveModuleBin(entry.module, dir);
    if (bin === undefined) return undefined;
    command = process.execPath;
    args = [bin, ...args];
  }
  return { command, args, cwd, ...(entry.env === undefined ? {} : { env: entry.env }) };
}

/** The absolute path of an installed package's executable, resolved the way Node would. */
function resolveModuleBin(name: string, from: string): string | undefined {
  const require = createRequire(join(resolve(from), 'noop.js'));
  for (const root of require.resolve.paths(name) ?? []) {
    const manifest = join(root, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      bin?: string | Record<string, string>;
    };
    const bins = typeof pkg.bin === 'string' ? { [name]: pkg.bin } : (pkg.bin ?? {});
    const unscoped = name.slice(name.lastIndexOf('/') + 1);
    const entry = bins[unscoped] ?? Object.values(bins)[0];
    return entry === undefined ? undefined : join(root, name, entry);
  }
  return undefined;
}
