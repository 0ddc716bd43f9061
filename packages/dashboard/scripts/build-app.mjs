// Bundles the web app (app/) into static/: app.js, app.css and index.html, minified, with
// Preact, htm and uPlot inside, so the dashboard needs no CDN or network at run time.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds the web app into `outdir` (default the package's `static/`), emptied first.
 *
 * @param {{ outdir?: string }} [options]
 * @returns {Promise<string>} the output folder
 */
export async function buildApp(options = {}) {
  const outdir = options.outdir ?? `${root}static`;
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await build({
    entryPoints: { app: `${root}app/main.ts` },
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(`${root}app/index.html`, `${outdir}/index.html`);
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildApp();
