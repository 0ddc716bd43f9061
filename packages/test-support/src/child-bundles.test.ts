import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  connectStdio,
  entryKey,
  EVERYTHING_STDIO_ENTRY,
  repoRoot,
  type BundleManifest,
} from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildChildBundles,
  CHILD_ENTRIES,
  SNAPSHOT_ENTRIES,
  THIRD_PARTY_ENTRIES,
} from './child-bundles.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

describe('buildChildBundles', () => {
  let dir: string;
  let manifest: BundleManifest;
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
    for (const [key, { bundle, snapshot }] of Object.entries(manifest)) {
      expect(bundle.startsWith(dir)).toBe(true);
      expect(existsSync(bundle)).toBe(true);
      expect(snapshot !== undefined).toBe(key in SNAPSHOT_ENTRIES);
      if (snapshot !== undefined) expect(existsSync(snapshot)).toBe(true);
    }
  });

  it('keeps import.meta.url pointing at the source, so files beside it are still found', async () => {
    // The CLI reads its version from ../package.json, relative to its source file.
    const bin = manifest['packages/cli/src/bin.ts']?.bundle ?? '';
    const { stdout } = await run(process.execPath, [bin, '--version']);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'packages/cli/package.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('serves from server-everything’s bundle what its own launcher serves', async () => {
    const bundle = manifest[entryKey(EVERYTHING_STDIO_ENTRY)]?.bundle ?? '';
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

  it('serves from the fixture server’s snapshot what its bundle serves, read at each start', async () => {
    const { bundle, snapshot } = manifest['packages/fixtures/src/serve-fixture.ts'] ?? {};
    // What the snapshot must read when it starts, not when it was built: the environment.
    const echoFile = join(dir, 'echo-description.txt');
    await writeFile(echoFile, 'Echoes, as of this start.');
    const env = { PATH: process.env.PATH ?? '', TOOLPLANE_FIXTURE_ECHO_FILE: echoFile };
    const start = (args: string[]) =>
      connectStdio({ command: process.execPath, args: [...args, 'stdio'], env });
    const [fromBundle, fromSnapshot] = await Promise.all([
      start([bundle ?? '']),
      start([`--snapshot-blob=${snapshot ?? ''}`, bundle ?? '']),
    ]);
    try {
      const tools = await fromSnapshot.client.listTools();
      expect(tools.tools.find((tool) => tool.name === 'echo')?.description).toBe(
        'Echoes, as of this start.',
      );
      expect(tools).toEqual(await fromBundle.client.listTools());
      expect(fromSnapshot.client.getServerVersion()).toEqual(fromBundle.client.getServerVersion());
      const call = { name: 'echo', arguments: { text: 'hi' } };
      expect(await fromSnapshot.client.callTool(call)).toEqual(
        await fromBundle.client.callTool(call),
      );
      expect(await fromSnapshot.client.listResources()).toEqual(
        await fromBundle.client.listResources(),
      );
    } finally {
      await Promise.all([fromBundle.close(), fromSnapshot.close()]);
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
