// What a CLI child loads, read from a log file: modules it preloads (`--import`) append every ES
// module resolution (`resolved URL`, which `import.meta.resolve` makes too) and load (`loaded
// URL`) as they happen, every child process it spawns (`spawned [command, ...args]`, JSON) and,
// at its exit, every CommonJS module it loaded (`required path`: `require`, and CommonJS packages
// imported as ES modules). One file holds them all in the order they happened.
//
// The log is a file, never the child's stderr: Node makes a stderr pipe non-blocking, so a
// synchronous write to it fails with EAGAIN once the pipe is full, which it is when the reading
// test is slow on a busy machine (the exit's hundreds of `required` lines fill it at once). A
// write that fails there ends the child with code 1 and takes its own error message with it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The environment variable that names a child's log file to the preloads. */
const LOG_ENV = 'TOOLPLANE_MODULE_LOG';

// Opens the log for appending once per thread (the hooks run on a thread of their own), so that
// the lines of every thread land in the order they were written.
const APPEND = `
import { openSync, writeSync } from 'node:fs';
let fd;
const append = (path, line) => writeSync((fd ??= openSync(path, 'a')), line + '\\n');
`;

const HOOKS = `${APPEND}
let path;
export function initialize(logPath) {
  path = logPath;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  append(path, 'resolved ' + result.url);
  return result;
}
export async function load(url, context, next) {
  append(path, 'loaded ' + url);
  return next(url, context);
}
`;

const REQUIRED = `${APPEND}
import { createRequire } from 'node:module';
const path = process.env.${LOG_ENV};
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  for (const module of Object.keys(cache)) append(path, 'required ' + module);
});
`;

// The builtin's exports are re-synced, so that ES module imports of \`spawn\` see the wrapper.
const SPAWNS = `${APPEND}
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
const path = process.env.${LOG_ENV};
const spawn = childProcess.spawn;
childProcess.spawn = function (command, args, ...rest) {
  append(path, 'spawned ' + JSON.stringify([command, ...(Array.isArray(args) ? args : [])]));
  return spawn.call(this, command, args, ...rest);
};
syncBuiltinESMExports();
`;

/** The URLs of the preloads, written into a folder. */
export interface ModuleLog {
  /** Registers the resolve and load hooks: `resolved` and `loaded` lines. */
  readonly hooks: string;
  /** `required` lines at exit. */
  readonly required: string;
  /** `spawned` lines. */
  readonly spawns: string;
  /** The environment that points a child's preloads at the log file `path`. */
  env(path: string): Record<string, string>;
  /** The lines of the log file `path`, or none if the child wrote none. */
  read(path: string): Promise<string[]>;
}

/** Writes the preloads into `dir`. */
export async function writeModuleLog(dir: string): Promise<ModuleLog> {
  const hooks = join(dir, 'module-hooks.mjs');
  const register = join(dir, 'register-module-hooks.mjs');
  const required = join(dir, 'required-log.mjs');
  const spawns = join(dir, 'spawn-log.mjs');
  await Promise.all([
    writeFile(hooks, HOOKS),
    writeFile(
      register,
      `import { register } from 'node:module';\n` +
        `register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: process.env.${LOG_ENV} });\n`,
    ),
    writeFile(required, REQUIRED),
    writeFile(spawns, SPAWNS),
  ]);
  return {
    hooks: pathToFileURL(register).href,
    required: pathToFileURL(required).href,
    spawns: pathToFileURL(spawns).href,
    env: (path) => ({ [LOG_ENV]: path }),
    read: async (path) => {
      const text = await readFile(path, 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line !== '');
    },
  };
}

/** The URLs of the log's `resolved` lines, in order. */
export function resolvedIn(lines: readonly string[]): string[] {
  return linesAfter(lines, 'resolved ');
}

/** The URLs of the log's `loaded` lines, in order. */
export function loadedIn(lines: readonly string[]): string[] {
  return linesAfter(lines, 'loaded ');
}

/** The paths of the log's `required` lines. */
export function requiredIn(lines: readonly string[]): string[] {
  return linesAfter(lines, 'required ');
}

function linesAfter(lines: readonly string[], prefix: string): string[] {
  return lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
}
