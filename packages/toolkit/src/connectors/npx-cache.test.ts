import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenNpxCacheHint } from './npx-cache.js';

// A cache folder as npx makes one, under a relative npm cache (no machine's home in the test).
const folder = join('npm-cache', '_npx', '9833c18b2d85bc59');

describe('brokenNpxCacheHint', () => {
  it('names the folder and the fix for a module missing under npx cache', () => {
    const stderr = [
      `Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from ${folder}/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js`,
      "  code: 'ERR_MODULE_NOT_FOUND'",
    ].join('\n');
    expect(brokenNpxCacheHint(stderr)).toBe(
      `npx's cache folder ${folder} is incomplete (an earlier npx install was ended midway); remove it (rm -rf "${folder}") or run "npm cache clean --force", then start again`,
    );
  });

  it('says nothing of a missing module elsewhere, or of another failure under npx', () => {
    expect(
      brokenNpxCacheHint("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/srv/app/x.js'"),
    ).toBeUndefined();
    expect(brokenNpxCacheHint(`TypeError at ${folder}/x.js`)).toBe(undefined);
  });
});
