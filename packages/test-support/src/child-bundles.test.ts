import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChildBundles, CHILD_ENTRIES } from './child-bundles.js';

const run = promisify(execFile);

describe('buildChildBundles', () => {
  let dir: string;
  let manifest: Record<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolplane-bundles-'));
    manifest = await buildChildBundles(dir);
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('bundles every listed entry into the folder it was given', () => {
    expect(Object.keys(manifest).sort()).toEqual([...CHILD_ENTRIES].sort());
    for (const bundle of Object.values(manifest)) {
      expect(bundle.startsWith(dir)).toBe(true);
      expect(existsSync(bundle)).toBe(true);
    }
  });

  it('keeps import.meta.url pointing at the source, so files beside it are still found', async () => {
    // The CLI reads its version from ../package.json, relative to its source file.
    const bin = manifest['packages/cli/src/bin.ts'] ?? '';
    const { stdout } = await run(process.execPath, [bin, '--version']);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'packages/cli/package.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('leaves third-party packages out, imported from where the source would find them', async () => {
    const files = await readdir(dir, { recursive: true });
    const text = files
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    // A native module among them: bundled, it would lose its binary.
    expect(text).toMatch(/from ?"\/[^"]*\/node_modules\/[^"]*better-sqlite3\/[^"]*"/);
  });
});
