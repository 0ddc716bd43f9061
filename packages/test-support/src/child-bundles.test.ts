import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectStdio, entryKey, EVERYTHING_STDIO_ENTRY, repoRoot } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChildBundles, CHILD_ENTRIES, THIRD_PARTY_ENTRIES } from './child-bundles.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

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
    const entries = [...CHILD_ENTRIES, ...THIRD_PARTY_ENTRIES.map(entryKey)];
    expect(Object.keys(manifest).sort()).toEqual(entries.sort());
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

  it('serves from server-everything’s bundle what its own launcher serves', async () => {
    const bundle = manifest[entryKey(EVERYTHING_STDIO_ENTRY)] ?? '';
    const launcher = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
    const [bundled, own] = await Promise.all([
      connectStdio({ command: process.execPath, args: [bundle] }),
      connectStdio({ command: process.execPath, args: [launcher, 'stdio'] }),
    ]);
    try {
      for (const client of [bundled.client, own.client])
        expect(client.getServerVersion()).toBeDefined();
      expect(bundled.client.getServerVersion()).toEqual(own.client.getServerVersion());
      expect(await bundled.client.listTools()).toEqual(await own.client.listTools());
      // Its documents are read from the package's docs folder, found from beside its modules.
      const resources = await own.client.listResources();
      expect(resources.resources.some((r) => r.uri.endsWith('/architecture.md'))).toBe(true);
      expect(await bundled.client.listResources()).toEqual(resources);
      const uri = 'demo://resource/static/document/architecture.md';
      expect(await bundled.client.readResource({ uri })).toEqual(
        await own.client.readResource({ uri }),
      );
    } finally {
      await Promise.all([bundled.close(), own.close()]);
    }
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
