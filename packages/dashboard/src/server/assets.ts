import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ToolError } from '@toolplane/toolkit';

/** One built file of the web app, held in memory (the whole app is a few dozen KB). */
export interface Asset {
  readonly body: Buffer;
  /**
   * The body gzipped for browsers that accept it (most of the first load): once, at its first
   * request, so that a gateway's start (which waits for nothing else of the dashboard) does not.
   */
  readonly gzipped: Buffer;
  readonly type: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Where the package's build puts the web app: `static/` at the package root, two levels above
 * both `src/server/` and `dist/server/`.
 */
export const STATIC_DIR = fileURLToPath(new URL('../../static/', import.meta.url));

/**
 * The built web app, by file name. Read once: nothing is looked up on disk per request, so no
 * request path can reach a file outside it.
 *
 * @throws {ToolError} `invalid_config` when the app was not built (`pnpm build`).
 */
export function loadAssets(dir: string = STATIC_DIR): ReadonlyMap<string, Asset> {
  if (!existsSync(`${dir}index.html`)) {
    throw new ToolError(
      'invalid_config',
      'the dashboard web app is not built: run `pnpm --filter @toolplane/dashboard build`',
    );
  }
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const ext = name.slice(name.lastIndexOf('.'));
    const type = TYPES[ext];
    if (type === undefined) continue;
    const body = readFileSync(`${dir}${name}`);
    let gzipped: Buffer | undefined;
    assets.set(name, {
      body,
      get gzipped() {
        return (gzipped ??= gzipSync(body, { level: 9 }));
      },
      type,
    });
  }
  return assets;
}
