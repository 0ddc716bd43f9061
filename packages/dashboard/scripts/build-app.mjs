// Bundles the web app (app/) into static/: app.js, app.css and index.html, minified, with
// Preact, htm and uPlot inside, so the dashboard needs no CDN or network at run time.
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds the web app into `outdir` (default the package's `static/`). The files are built aside
 * and each renamed into place, so a gateway starting meanwhile (a test run builds while other
 * tests serve) reads a whole file, old or new, never half of one.
 *
 * @param {{ outdir?: string }} [options]
 * @returns {Promise<string>} the output folder
 */
export async function buildApp(options = {}) {
  const outdir = options.outdir ?? `${root}static`;
  const aside = `${outdir}/.build-${String(process.pid)}`;
  await mkdir(aside, { recursive: true });
  try {
    await build({
      entryPoints: { app: `${root}app/main.ts` },
      outdir: aside,
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['chrome120', 'firefox120', 'safari17'],
      legalComments: 'none',
      logLevel: 'warning',
    });
    await copyFile(`${root}app/index.html`, `${aside}/index.html`);
    for (const name of await readdir(aside)) await rename(`${aside}/${name}`, `${outdir}/${name}`);
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildApp();
