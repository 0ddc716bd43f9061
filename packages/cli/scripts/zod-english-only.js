// An esbuild plugin shared by the CLI's bundle (bundle-bin.js) and the test run's bundles of the
// entries tests start as children (packages/test-support/src/child-bundles.ts), so that those
// children load what the shipped bundle loads.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * zod's 250-odd error-message locales (~300 kB of the bundle, compiled by every start that loads
 * zod) reach the bundle only through its `locales` namespace export, kept whole because the MCP
 * SDK and our packages import zod as one namespace object. zod itself registers English directly
 * (`v4/classic/schemas.js` imports `locales/en.js`), and nothing bundled here reads `locales`:
 * the namespace is English alone. A bundled module that does read it fails the build, so this
 * can never change what runs.
 */
export const englishOnly = {
  name: 'zod-english-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer)) return undefined;
      return {
        path: join(dirname(args.importer), '..', 'locales', 'en.js'),
        namespace: 'zod-locales',
      };
    });
    esbuild.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
    // JavaScript only: the workspace's TypeScript sources, which the test run's bundles read
    // (and the sourceUrls plugin reads again), reach the CLI's bundle compiled, checked here.
    esbuild.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
      if (
        /[\\/]node_modules[\\/](\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?zod[\\/]/.test(args.path)
      ) {
        return undefined;
      }
      const text = await readFile(args.path, 'utf8');
      if (/\.locales\b/.test(text)) {
        throw new Error(`${args.path} reads zod's locales, which the bundle keeps English only`);
      }
      return undefined;
    });
  },
};
