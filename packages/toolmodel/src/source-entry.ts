// How code of this repository starts one of its TypeScript entries (a child process, a worker
// thread) while it runs from its sources rather than from a built package: as the bundle the
// test run built for it when there is one, else through tsx's loader. Built packages never take
// this path: their entries are JavaScript beside them. Node only (not part of the main entry).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The environment variable the test run's global setup sets to the folder of the bundles it
 * built. Child processes and worker threads inherit it, so a child that starts another gets the
 * bundle too.
 */
export const BUNDLES_ENV = 'TOOLPLANE_TEST_BUNDLES';

/** The name of the file in that folder that maps each bundled entry to its bundle. */
export const BUNDLE_MANIFEST = 'manifest.json';

/**
 * The repository's root folder (seen from its sources or its built packages), which manifest
 * keys are relative to.
 */
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** What the test run built for one entry: absolute paths. */
export interface BuiltEntry {
  readonly bundle: string;
  /** A V8 startup snapshot of the entry, for the entries that have one. */
  readonly snapshot?: string | undefined;
}

/** Repo-relative entry path (forward slashes) → what was built for it. */
export type BundleManifest = Record<string, BuiltEntry>;

let loaded: { readonly dir: string; readonly manifest: BundleManifest } | undefined;

function manifest(dir: string): BundleManifest {
  if (loaded?.dir !== dir) {
    const text = readFileSync(join(dir, BUNDLE_MANIFEST), 'utf8');
    loaded = { dir, manifest: JSON.parse(text) as BundleManifest };
  }
  return loaded.manifest;
}

/** A path relative to the repository root with forward slashes: the manifest's key. */
export function entryKey(entry: string): string {
  return relative(repoRoot, resolve(entry)).split('\\').join('/');
}

/**
 * What the test run built for the TypeScript `entry` (a path in this repository), or
 * `undefined` when it built nothing (outside the test run, e.g. a benchmark).
 *
 * @throws {Error} when bundles were built but `entry` is not among them: an entry a test starts
 * belongs in the global setup's list, or every start would pay for compiling TypeScript again.
 */
export function builtEntry(entry: string): BuiltEntry | undefined {
  const dir = process.env[BUNDLES_ENV];
  if (dir === undefined || dir === '') return undefined;
  const key = entryKey(entry);
  const built = manifest(dir)[key];
  if (built === undefined) {
    throw new Error(
      `${key} is started from source but not bundled: add it to the entries in packages/test-support/src/child-bundles.ts`,
    );
  }
  return built;
}

/** Resolves the workspace's packages to their TypeScript sources. */
const SOURCE_CONDITION = '--conditions=@toolplane/source';

/**
 * The Node options that run this repository's TypeScript: tsx's loader, with the workspace's
 * `@toolplane/source` export condition so its packages resolve to their sources too.
 */
export function tsxArgs(): string[] {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return [SOURCE_CONDITION, '--import', tsx];
}

/** A worker thread's module and the Node options it needs (`Worker`'s `execArgv`). */
export interface WorkerModule {
  readonly filename: string;
  readonly execArgv: readonly string[];
  /** The module is TypeScript, run through tsx's loader (see {@link startWorker}). */
  readonly typescript: boolean;
}

/**
 * The worker module `path` (without its extension) beside the module at `from` (its
 * `import.meta.url`): `path.js` when `from` is built JavaScript; from sources, the test run's
 * bundle of `path.ts`, else `path.ts` under tsx's loader (a worker inherits no loader from its
 * parent). For a pool that imports the module once its own worker runs (piscina); a `Worker` of
 * one's own starts through {@link startWorker}.
 */
export function workerModule(from: string, path: string): WorkerModule {
  if (!from.endsWith('.ts'))
    return {
      filename: fileURLToPath(new URL(`${path}.js`, from)),
      execArgv: [],
      typescript: false,
    };
  const source = fileURLToPath(new URL(`${path}.ts`, from));
  const built = builtEntry(source);
  if (built !== undefined) return { filename: built.bundle, execArgv: [], typescript: false };
  return { filename: source, execArgv: tsxArgs(), typescript: true };
}

/**
 * Starts a worker thread on `module` (see {@link workerModule}). A worker's entry is loaded before
 * the hooks of its `--import` modules apply, so TypeScript's is imported by a first module that
 * registers tsx's loader, then imports it.
 */
export function startWorker(module: WorkerModule, options: WorkerOptions = {}): Worker {
  if (!module.typescript) return new Worker(module.filename, { ...options, execArgv: [] });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = JSON.stringify(pathToFileURL(module.filename).href);
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${entry}); });`;
  return new Worker(boot, { ...options, eval: true, execArgv: [SOURCE_CONDITION] });
}
