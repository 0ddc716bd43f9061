// Bundles the built CLI (dist/bin.js and everything it imports, workspace packages and
// third-party ones alike) into dist/bundle/, one chunk per lazily loaded command: a start then
// reads a few files instead of resolving, reading and linking ~900 modules one by one
// (bench/RESULTS.md has the figures). Run after `tsc` by the package's build script;
// bin/toolplane.js runs the bundle when it is there and fresh.
import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';
import { lazySdkValidators } from './lazy-sdk-validators.js';
import { englishOnly } from './zod-english-only.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/bundle/', import.meta.url));

/**
 * Left to Node's own loading: libraries that start workers from files found next to their own
 * (`__dirname`): piscina, pino's transports. Each is a dependency of this package, so the bundle
 * finds it, as it finds cli-table3, which src/table.ts requires only for the tables it does not
 * draw itself. The stores are bundled, a chunk each, loaded only for its store. Left to Node, a
 * store loaded a toolkit, an MCP SDK and a zod of its own beside the bundle's (~400 modules):
 * `tools list` on the default SQLite store took 1.6× the time of the same list on a memory
 * store. Their database drivers are left to Node (below).
 */
const EXTERNAL = ['piscina', 'pino'];

/**
 * Workspace modules that find files next to themselves (`new URL('../package.json',
 * import.meta.url)`, a worker script, the dashboard's static folder) keep finding them from
 * inside the bundle: their `import.meta.url` becomes the URL of the module's own built file,
 * found at run time through its package (`import.meta.resolve`), so it holds in a clone and in
 * an installed package alike. The CLI's own files sit beside the bundle, in dist/.
 */
const ownUrls = {
  name: 'own-urls',
  setup(esbuild) {
    // Found at run time from the bundle, a package resolves only when it is a dependency of
    // this one: with pnpm's layout a dependency of a dependency is out of reach.
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));
    esbuild.onLoad({ filter: /\.js$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const match = /[\\/]packages[\\/]([^\\/]+)[\\/]dist[\\/](.+)$/.exec(args.path);
      if (match === null) throw new Error(`${args.path}: not a built workspace module`);
      const [, name, file] = match;
      if (name !== 'cli' && !dependencies.has(`@toolplane/${name}`)) {
        throw new Error(
          `${args.path} finds files through @toolplane/${name} at run time: add it to the CLI's dependencies`,
        );
      }
      const url =
        name === 'cli'
          ? `new URL(${JSON.stringify(`../${file.split(sep).join('/')}`)}, import.meta.url).href`
          : `new URL(${JSON.stringify(`./${file.split(sep).join('/')}`)}, import.meta.resolve(${JSON.stringify(`@toolplane/${name}`)})).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

/**
 * A CommonJS library that every start would evaluate and few commands use, loaded by Node on first
 * use instead: liquidjs (the toolkit's prompt templates; the toolkit makes its engine on the first
 * template). Its import is answered by a small module whose class loads the real one (required
 * through the toolkit, which depends on it) when it is first constructed. The MCP client's ajv is
 * loaded on first use too (lazy-sdk-validators.js).
 */
const lazyLiquid = {
  name: 'lazy-liquid',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^liquidjs$/ }, (args) => {
      if (!/[\\/]packages[\\/]toolkit[\\/]dist[\\/]/.test(args.importer)) {
        throw new Error(`${args.importer} imports liquidjs, which the bundle loads lazily`);
      }
      return { path: args.path, namespace: 'lazy-liquid' };
    });
    esbuild.onLoad({ filter: /.*/, namespace: 'lazy-liquid' }, () => ({
      contents: `import { createRequire } from 'node:module';
export class Liquid {
  constructor(options) {
    const real = createRequire(import.meta.resolve('@toolplane/toolkit'))('liquidjs');
    return new real.Liquid(options);
  }
}`,
      loader: 'js',
    }));
  },
};

/**
 * The stores' database drivers: better-sqlite3 (a native module) and pg, CommonJS both, loaded
 * by Node from where they are installed, with the chunk of their store. A driver is a dependency
 * of its store package, not of this one: it is required through the store (found from the
 * bundle, as the CLI depends on it), so its version is the one the store names, in a clone and
 * in an installed package alike.
 */
const DRIVERS = { 'better-sqlite3': 'store-sqlite', pg: 'store-postgres' };
const driversThroughStores = {
  name: 'drivers-through-stores',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^(better-sqlite3|pg)$/ }, (args) => {
      const store = DRIVERS[args.path];
      if (!new RegExp(`[\\\\/]packages[\\\\/]${store}[\\\\/]dist[\\\\/]`).test(args.importer)) {
        throw new Error(
          `${args.importer} imports ${args.path}, which the bundle requires through @toolplane/${store}`,
        );
      }
      return { path: args.path, namespace: 'driver' };
    });
    esbuild.onLoad({ filter: /.*/, namespace: 'driver' }, (args) => ({
      // `require` is the chunk's own (the banner's): it finds the store from the bundle.
      contents: `module.exports = require('node:module').createRequire(require.resolve('@toolplane/${DRIVERS[args.path]}'))('${args.path}');`,
      loader: 'js',
    }));
  },
};

// The MCP client's validator, required through the toolkit (which depends on the client) from
// wherever the package is installed.
const lazyClientValidator = lazySdkValidators(
  ['@modelcontextprotocol/client/_shims'],
  () => "import.meta.resolve('@toolplane/toolkit')",
);

await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { toolplane: fileURLToPath(new URL('../dist/bin.js', import.meta.url)) },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Libraries that name errors after their class (`this.name = this.constructor.name`, as
  // commander's do) must keep those names when modules are merged.
  keepNames: true,
  // Whitespace and syntax minified (names kept, for stack traces): a start compiles every chunk
  // it loads, and less text compiles faster.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [lazyLiquid, driversThroughStores, lazyClientValidator, englishOnly, ownUrls],
  absWorkingDir: packageDir,
  logLevel: 'warning',
  metafile: process.env.BUNDLE_META !== undefined,
  // CommonJS dependencies call `require` for Node's built-ins; an ES module has none of its own.
  banner: {
    js: "import { createRequire as __toolplaneRequire } from 'node:module'; const require = __toolplaneRequire(import.meta.url);",
  },
});
if (process.env.BUNDLE_META !== undefined) {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(process.env.BUNDLE_META, JSON.stringify(result.metafile));
}
