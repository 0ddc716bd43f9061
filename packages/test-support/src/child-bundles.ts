// Bundles, once per test run, every TypeScript entry a test starts as a child process, so a child
// starts as plain JavaScript instead of compiling the workspace's sources through tsx on every
// spawn (about four times the CPU of the same start prebuilt).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { BUNDLE_MANIFEST, entryKey, repoRoot } from '@toolplane/fixtures';

/** The entries tests spawn, relative to the repository root. */
export const CHILD_ENTRIES: readonly string[] = [
  'packages/fixtures/src/serve-fixture.ts',
  'packages/gateway/src/testing/serve-gateway.ts',
  'packages/gateway/src/testing/conformance-server.ts',
  'packages/gateway/src/testing/raw-upstream.ts',
  'packages/toolkit/src/connectors/testing/exit-while-connecting.ts',
  'packages/toolkit/src/connectors/testing/conformance-client.ts',
  'packages/cli/src/bin.ts',
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

/** Where the bundles go (a folder per run inside it): git-ignored, rebuilt on every run. */
export const BUNDLE_DIR = join(repoRoot, 'node_modules', '.cache', 'toolplane-test');

const isBare = (path: string): boolean =>
  !path.startsWith('.') && !path.startsWith('/') && !path.startsWith('node:');

/**
 * Third-party packages stay outside the bundles, imported by the absolute path esbuild resolves
 * (as Node would from the importing source file): native modules keep their binaries, packages
 * keep reading their own files, and a bundle loads the very module instances a source run does.
 * Workspace packages (`@toolplane/*`) are bundled from source through the `@toolplane/source`
 * condition, so no build is needed first.
 */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, async (args) => {
      if (!isBare(args.path) || args.path.startsWith('@toolplane/')) return undefined;
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

/**
 * Sources that find files next to themselves (`new URL('../package.json', import.meta.url)`) keep
 * finding them from inside a bundle: `import.meta.url` becomes the source file's own URL.
 */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/**
 * Builds {@link CHILD_ENTRIES} into `outdir` (emptied first) and writes the manifest that
 * `bundledEntry` of `@toolplane/fixtures` reads; resolves with that manifest.
 */
export async function buildChildBundles(
  outdir: string = BUNDLE_DIR,
): Promise<Record<string, string>> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const entryPoints = CHILD_ENTRIES.map((entry) => ({
    in: join(repoRoot, entry),
    out: entry.replace(/\.ts$/, ''),
  }));
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['@toolplane/source'],
    outExtension: { '.js': '.mjs' },
    plugins: [externalPackages, sourceUrls],
    absWorkingDir: repoRoot,
    logLevel: 'error',
    metafile: true,
  });
  const manifest: Record<string, string> = {};
  const listed = new Set(CHILD_ENTRIES);
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    // A module an entry imports lazily (`await import()`) gets an output with an entryPoint of
    // its own under code splitting; only the listed entries are ever spawned.
    if (meta.entryPoint === undefined) continue;
    const key = entryKey(join(repoRoot, meta.entryPoint));
    if (!listed.has(key)) continue;
    manifest[key] = join(repoRoot, output);
  }
  await writeFile(join(outdir, BUNDLE_MANIFEST), JSON.stringify(manifest, null, 2));
  return manifest;
}
