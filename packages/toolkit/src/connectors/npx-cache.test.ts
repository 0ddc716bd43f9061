import { describe, expect, it } from 'vitest';
import { brokenNpxCacheHint } from './npx-cache.js';

describe('brokenNpxCacheHint', () => {
  it('names the folder and the fix for a module missing under npx cache', () => {
    const stderr = [
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /home/u/.npm/_npx/9833c18b2d85bc59/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js",
      "  code: 'ERR_MODULE_NOT_FOUND'",
    ].join('\n');
    expect(brokenNpxCacheHint(stderr)).toBe(
      `npx's cache folder /home/u/.npm/_npx/9833c18b2d85bc59 is incomplete (an earlier npx install was ended midway); remove it (rm -rf "/home/u/.npm/_npx/9833c18b2d85bc59") or run "npm cache clean --force", then start again`,
    );
  });

  it('says nothing of a missing module elsewhere, or of another failure under npx', () => {
    expect(
      brokenNpxCacheHint("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/srv/app/x.js'"),
    ).toBeUndefined();
    expect(brokenNpxCacheHint('TypeError at /home/u/.npm/_npx/9833c18b2d85bc59/x.js')).toBe(
      undefined,
    );
  });
});
