// The early start of a command's stdio servers. A server's own start (often a few hundred
// milliseconds of node or npx) is the one wait a command cannot avoid, and the CLI used to begin
// it only after loading the toolkit, the SDK and the gateway. This module, loaded first and light
// (Node built-ins, the spawn module of the toolkit; the YAML parser only for a YAML config: a
// JSON one starts its servers sooner without it), reads the config file just
// far enough to find its stdio servers and starts them; the connectors adopt those children
// later (`StdioSource.prestarted`). Nothing here reports anything: a config it cannot read, or
// an entry that is not plainly a stdio server, is left to the full load, which says what is
// wrong; a child started for a config refused later is never adopted, and ended.
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { StdioPrestarts } from '@toolplane/toolkit/spawn';
import { findConfigFile } from './config-file.js';
import { stdioSource, type StdioEntry } from './config-stdio.js';
import { parseJson, substitute } from './config-plain.js';

/** The commands (and `tools` subcommands) that connect to every server of the config. */
const EARLY = new Set(['serve', 'tools list', 'tools search', 'tools describe', 'tools call']);

/**
 * Starts the stdio servers of the config `argv` names (`--config`, else the one in `cwd`) when
 * `argv` is a command that will connect to them; `undefined` when it is not, or when there is
 * nothing to start. The caller adopts the children through the pool and disposes of it.
 */
export async function prestartServers(
  argv: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string | undefined>> },
): Promise<StdioPrestarts | undefined> {
  const words = commandWords(argv);
  if (words === undefined || !EARLY.has(words.command)) return undefined;
  let sources: StdioEntry[];
  let dir: string;
  try {
    const file =
      words.config === undefined ? findConfigFile(options.cwd) : resolve(options.cwd, words.config);
    if (file === undefined) return undefined;
    dir = dirname(file);
    const text = readFileSync(file, 'utf8');
    const raw =
      extname(file).toLowerCase() === '.json'
        ? parseJson(text, file)
        : (await import('./config-text.js')).parseText(text, file);
    sources = stdioEntries(substitute(raw, [], options.env, { add: ignore }, basename(file)));
  } catch {
    // The full load reads the file again and reports what is wrong with it.
    return undefined;
  }
  if (sources.length === 0) return undefined;
  // A one-shot command releases its servers once its answer is out (`closing: 'release'`): their
  // reapers are armed now, while this process is small and quick to fork.
  const pool = new StdioPrestarts({ release: words.command !== 'serve' });
  for (const entry of sources) {
    const source = stdioSource(entry, dir);
    if (source !== undefined) pool.start(source);
  }
  return pool;
}

const ignore = (): void => undefined;

/**
 * The command `argv` runs (`serve`, `tools list`) as {@link prestartServers} reads it; undefined
 * when it asks for help. For the bin, which holds SIGHUP for `serve` alone from its start.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  return commandWords(argv)?.command;
}

/**
 * The command (`serve`, `tools list`) and the `--config` value of `argv`; undefined when it asks
 * for help, where nothing starts.
 */
function commandWords(
  argv: readonly string[],
): { command: string; config: string | undefined } | undefined {
  const positional: string[] = [];
  let config: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (word === '--') break;
    if (word === '-h' || word === '--help') return undefined;
    if (word === '-c' || word === '--config') {
      config = argv[i + 1];
      i += 1;
    } else if (word.startsWith('--config=')) {
      config = word.slice('--config='.length);
    } else if (!word.startsWith('-')) {
      positional.push(word);
    }
  }
  const [first, second] = positional;
  if (first === undefined || first === 'help') return undefined;
  return { command: first === 'tools' ? `tools ${second ?? ''}` : first, config };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The entries of `mcpServers` and `connectors` that are plainly stdio servers (a command or a
 * module, no url, not disabled, well-typed keys), as the full load will read them.
 */
function stdioEntries(config: unknown): StdioEntry[] {
  if (!isRecord(config)) return [];
  const found: StdioEntry[] = [];
  for (const section of [config.mcpServers, config.connectors]) {
    if (!isRecord(section)) continue;
    for (const server of Object.values(section)) {
      if (!isRecord(server) || server.disabled === true || server.url !== undefined) continue;
      const { command, module, args, env, cwd } = server;
      const named = [command, module].filter((value) => value !== undefined);
      if (named.length !== 1 || typeof named[0] !== 'string' || named[0].trim() === '') continue;
      if (args !== undefined && !isStrings(args)) continue;
      if (cwd !== undefined && typeof cwd !== 'string') continue;
      if (env !== undefined && !(isRecord(env) && isStrings(Object.values(env)))) continue;
      found.push({
        ...(typeof command === 'string' ? { command: command.trim() } : {}),
        ...(typeof module === 'string' ? { module: module.trim() } : {}),
        ...(args === undefined ? {} : { args }),
        ...(env === undefined ? {} : { env: env as Record<string, string> }),
        ...(cwd === undefined ? {} : { cwd }),
      });
    }
  }
  return found;
}
