// Bundles, once per test run, every TypeScript entry a test starts as a child process, so a child
// starts as plain JavaScript instead of compiling the workspace's sources through tsx on every
// spawn (about four times the CPU of the same start prebuilt).
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import {
  BUNDLE_MANIFEST,
  EVERYTHING_STDIO_ENTRY,
  entryKey,
  repoRoot,
  type BundleManifest,
} from '@toolplane/fixtures';
import { lazySdkValidators } from '../../cli/scripts/lazy-sdk-validators.js';
import { englishOnly } from '../../cli/scripts/zod-english-only.js';

/** The entries tests spawn, relative to the repository root. */
export const CHILD_ENTRIES: readonly string[] = [
  'packages/fixtures/src/serve-fixture.ts',
  'packages/gateway/src/testing/serve-gateway.ts',
  'packages/gateway/src/testing/conformance-server.ts',
  'packages/gateway/src/testing/raw-upstream.ts',
  'packages/toolkit/src/connectors/testing/exit-while-connecting.ts',
  'packages/toolkit/src/connectors/testing/conformance-client.ts',
  'packages/cli/src/bin.ts',
  // Worker threads, not processes: started from sources (in process, or by a bundled child) they
  // run these bundles too (workerModule of @toolplane/toolmodel/source-entry).
  'packages/codemode/src/worker.ts',
  'packages/builtins/src/heavy/worker.ts',
  'packages/cli/src/testing/store-writer.ts',
  'packages/store-sqlite/src/writer.fixture.ts',
  'packages/store-sqlite/src/pin-writer.fixture.ts',
  'packages/store-sqlite/src/evidence-writer.fixture.ts',
  'examples/aggregate/src/main.ts',
  'examples/ai-sdk-agent/src/main.ts',
  'examples/anthropic-agent/src/main.ts',
  'examples/code-mode/src/main.ts',
  'examples/fleet/src/main.ts',
  'examples/openai-agent/src/main.ts',
  'examples/quickstart/src/main.ts',
];

/**
 * Third-party servers tests start, by the absolute path of the module each runs: bundled too (a
 * server-everything start, ~110 a run, took 0.30 s of CPU from its package and 0.15 s bundled).
 */
export const THIRD_PARTY_ENTRIES: readonly string[] = [EVERYTHING_STDIO_ENTRY];

/**
 * Entries also started from a V8 startup snapshot, each with the module that makes its snapshot
 * (its modules evaluated when the snapshot is built, a function called at each start). A fixture
 * server starts about 400 times a run: 0.07 s of CPU from the snapshot against 0.12 s from its
 * bundle (a stdio session of three messages, medians of 15 starts).
 */
export const SNAPSHOT_ENTRIES: Readonly<Record<string, string>> = {
  'packages/fixtures/src/serve-fixture.ts': 'packages/fixtures/src/serve-fixture.snapshot.ts',
};

/** Where the bundles go (a folder per run inside it): git-ignored, rebuilt on every run. */
export const BUNDLE_DIR = join(repoRoot, 'node_modules', '.cache', 'toolplane-test');

const isBare = (path: string): boolean =>
  !path.startsWith('.') && !path.startsWith('/') && !path.startsWith('node:');

/**
 * Third-party packages left to Node's own loading, imported by the absolute path esbuild
 * resolves (as Node would from the importing source file): native modules (better-sqlite3), pg
 * (its optional native binding), libraries that start workers from files next to their own
 * (piscina, pino) or read files next to their own (QuickJS's WebAssembly, `@jitl/…`), and
 * vitest. The CLI's own bundle (packages/cli/scripts/bundle-bin.js) keeps out the same ones (the
 * stores whole, piscina, pino; QuickJS only runs in the code-mode worker, which is not bundled). Every other package is bundled, as in
 * that bundle: a child reads a few files instead of resolving and linking its dependencies
 * module by module (a fixture server's start took 0.19 s of CPU with them outside and 0.15 s
 * inside; the CLI's `serve --stdio`, 0.44 s and 0.29 s), and a CommonJS package the code
 * imports lazily reaches it as it does in the shipped bundle (its exports as `default` alone),
 * so the tests find what that breaks.
 */
const KEEP_EXTERNAL =
  /^(better-sqlite3|pg|pg-[^/]+|piscina|pino|vitest|@vitest\/[^/]+|@jitl\/[^/]+)(\/|$)/;

/** The packages above stay outside; workspace packages are bundled from source (`@toolplane/source`). */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, async (args) => {
      if (!isBare(args.path) || !KEEP_EXTERNAL.test(args.path)) return undefined;
      if (args.pluginData === 'inner') return undefined;
      const found = await esbuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'inner',
      });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, external: true };
    });
  },
};

/** The SDK's validators, required from the SDK file that imports their shim (it knows itself). */
const lazyValidators = lazySdkValidators(
  ['@modelcontextprotocol/client/_shims', '@modelcontextprotocol/server/_shims'],
  (importer) => JSON.stringify(importer),
);

/** Where an installed package's module sits: the package's folder and its name. */
interface PackageModule {
  readonly dir: string;
  readonly name: string;
}

function packageModule(entry: string): PackageModule {
  const found = /^(.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\/)/.exec(entry);
  if (found === null) throw new Error(`${entry} is not a module of an installed package`);
  return { dir: found[1] as string, name: found[2] as string };
}

/** The package folders of {@link THIRD_PARTY_ENTRIES}: their modules read files beside them. */
const thirdPartyDirs = THIRD_PARTY_ENTRIES.map((entry) => packageModule(entry).dir);

/**
 * Sources that find files next to themselves (`new URL('../package.json', import.meta.url)`) keep
 * finding them from inside a bundle: `import.meta.url` becomes the source file's own URL. So do
 * the third-party servers' modules (server-everything reads its docs folder that way).
 */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      const typescript = /\.[cm]?ts$/.test(args.path);
      const wanted = args.path.includes('/node_modules/')
        ? thirdPartyDirs.some((dir) => args.path.startsWith(dir))
        : typescript;
      if (!wanted) return undefined;
      const text = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return {
        contents: text.replaceAll('import.meta.url', url),
        loader: typescript ? 'ts' : 'js',
      };
    });
  },
};

/** What every bundle here is built with. */
const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  conditions: ['@toolplane/source'],
  // Libraries that name errors after their class (commander's) keep those names when merged.
  keepNames: true,
  // As the CLI's shipped bundle is (packages/cli/scripts/bundle-bin.js): whitespace and syntax
  // minified, names kept, zod's locales English only, the MCP SDK's ajv loaded on first use (the
  // server's too, here). A child compiles every chunk it loads.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [externalPackages, lazyValidators, englishOnly, sourceUrls],
  absWorkingDir: repoRoot,
  logLevel: 'error',
} satisfies BuildOptions;

const run = promisify(execFile);

/**
 * Builds a startup snapshot of each of {@link SNAPSHOT_ENTRIES} into `dir`: its module bundled
 * into one CommonJS script (what `--build-snapshot` runs), then the snapshot built from it.
 * Resolves with each entry's blob by the entry's manifest key.
 */
async function buildSnapshots(dir: string): Promise<Record<string, string>> {
  await mkdir(dir, { recursive: true });
  const built = await Promise.all(
    Object.entries(SNAPSHOT_ENTRIES).map(async ([entry, snapshotEntry], i) => {
      const script = join(dir, `${i}.cjs`);
      const blob = join(dir, `${i}.blob`);
      await build({
        ...COMMON,
        entryPoints: [join(repoRoot, snapshotEntry)],
        outfile: script,
        format: 'cjs',
      });
      try {
        await run(process.execPath, [`--snapshot-blob=${blob}`, '--build-snapshot', script]);
      } catch (error) {
        const { stderr = '' } = error as { stderr?: string };
        throw new Error(
          `cannot build the startup snapshot of ${entry}: a module it loads may use what Node cannot snapshot (node:http, import()), which it must then load when it starts\n${stderr}`,
          { cause: error },
        );
      }
      return [entry, blob] as const;
    }),
  );
  return Object.fromEntries(built);
}

/**
 * Builds {@link CHILD_ENTRIES} into `outdir` (emptied first) and writes the manifest that
 * `bundledEntry` of `@toolplane/fixtures` reads; resolves with that manifest.
 */
export async function buildChildBundles(outdir: string = BUNDLE_DIR): Promise<BundleManifest> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const entryPoints = [
    ...CHILD_ENTRIES.map((entry) => ({
      in: join(repoRoot, entry),
      out: entry.replace(/\.ts$/, ''),
    })),
    ...THIRD_PARTY_ENTRIES.map((entry) => {
      // Named `index` beside the package's name, as its own launcher is: a connector started
      // from it infers the package's name as its namespace, as from the launcher.
      return { in: entry, out: `third-party/${packageModule(entry).name}/index` };
    }),
  ];
  const [result, snapshots] = await Promise.all([
    build({
      ...COMMON,
      entryPoints,
      outdir,
      splitting: true,
      format: 'esm',
      outExtension: { '.js': '.mjs' },
      // CommonJS dependencies call `require` for Node's built-ins; an ES module has none of its own.
      banner: {
        js: "import { createRequire as __childRequire } from 'node:module'; const require = __childRequire(import.meta.url);",
      },
      metafile: true,
    }),
    buildSnapshots(join(outdir, 'snapshots')),
  ]);
  const manifest: BundleManifest = {};
  const listed = new Set([...CHILD_ENTRIES, ...THIRD_PARTY_ENTRIES.map(entryKey)]);
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    // A module an entry imports lazily (`await import()`) gets an output with an entryPoint of
    // its own under code splitting; only the listed entries are ever spawned.
    if (meta.entryPoint === undefined) continue;
    const key = entryKey(join(repoRoot, meta.entryPoint));
    if (!listed.has(key)) continue;
    manifest[key] = { bundle: join(repoRoot, output), snapshot: snapshots[key] };
  }
  await writeFile(join(outdir, BUNDLE_MANIFEST), JSON.stringify(manifest, null, 2));
  return manifest;
}
