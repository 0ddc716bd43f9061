import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAssets } from './assets.js';

let dir: string;

beforeAll(async () => {
  dir = `${await mkdtemp(join(tmpdir(), 'toolplane-assets-'))}/`;
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(dir, 'app.js'), 'console.log("app");'.repeat(100));
  await writeFile(join(dir, 'notes.txt'), 'not served');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadAssets', () => {
  it('serves each known file type, gzipped on first use to the same bytes', () => {
    const assets = loadAssets(dir);
    expect([...assets.keys()].sort()).toEqual(['app.js', 'index.html']);
    const app = assets.get('app.js');
    expect(app?.type).toBe('text/javascript; charset=utf-8');
    const gzipped = app?.gzipped ?? Buffer.alloc(0);
    expect(gunzipSync(gzipped).equals(app?.body ?? Buffer.alloc(1))).toBe(true);
    expect(gzipped.length).toBeLessThan(app?.body.length ?? 0);
    // Made once: a second request gets the very same buffer.
    expect(app?.gzipped).toBe(gzipped);
  });

  it('refuses a folder without the built app', async () => {
    const empty = `${await mkdtemp(join(tmpdir(), 'toolplane-assets-empty-'))}/`;
    try {
      expect(() => loadAssets(empty)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
