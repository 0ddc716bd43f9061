// What a CLI child loads, read from its stderr: two modules it preloads (`--import`) write every
// ES module resolution (`resolved URL`, which `import.meta.resolve` makes too) and load (`loaded
// URL`) as they happen and, at its exit, every CommonJS module it loaded (`required path`:
// `require`, and CommonJS packages imported as ES modules).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const RESOLVE_HOOK = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  writeSync(2, 'resolved ' + result.url + '\\n');
  return result;
}
export async function load(url, context, next) {
  writeSync(2, 'loaded ' + url + '\\n');
  return next(url, context);
}
`;

const REQUIRED_LOG = `
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  for (const path of Object.keys(cache)) writeSync(2, 'required ' + path + '\\n');
});
`;

/** The URLs of the two preloads, written into `dir`. */
export interface ModuleLog {
  /** Registers the resolve and load hooks: `resolved` and `loaded` lines. */
  readonly hooks: string;
  /** `required` lines at exit. */
  readonly required: string;
}

/** Writes the preloads into `dir`. */
export async function writeModuleLog(dir: string): Promise<ModuleLog> {
  const hook = join(dir, 'resolve-hook.mjs');
  await writeFile(hook, RESOLVE_HOOK);
  const register = join(dir, 'resolve-log.mjs');
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
  );
  const required = join(dir, 'required-log.mjs');
  await writeFile(required, REQUIRED_LOG);
  return { hooks: pathToFileURL(register).href, required: pathToFileURL(required).href };
}

/** The URLs of `stderr`'s `resolved` lines, in order. */
export function resolvedIn(stderr: string): string[] {
  return linesAfter(stderr, 'resolved ');
}

/** The URLs of `stderr`'s `loaded` lines, in order. */
export function loadedIn(stderr: string): string[] {
  return linesAfter(stderr, 'loaded ');
}

/** The paths of `stderr`'s `required` lines. */
export function requiredIn(stderr: string): string[] {
  return linesAfter(stderr, 'required ');
}

function linesAfter(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}
