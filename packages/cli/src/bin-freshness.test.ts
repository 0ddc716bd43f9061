import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The bin's check that a clone's build is fresh, run on a made-up workspace: `cli` (the bin's
// package) depending on `dep`, each with a build and sources in nested folders. Each build entry
// prints which one ran. No tsx resolves from the temporary folder, so a build older than a source
// falls back to the compiled dist/bin.js, never to the source: which entry ran tells what the
// walk found.
const bin = fileURLToPath(new URL('../bin/toolplane.js', import.meta.url));
const run = promisify(execFile);

let root: string;

/** Writes `text` to `path` (under the workspace) with its mtime `secondsAgo` in the past. */
async function put(path: string, text: string, secondsAgo: number): Promise<void> {
  const file = join(root, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  const at = Date.now() / 1000 - secondsAgo;
  await utimes(file, at, at);
}

async function ran(): Promise<string> {
  const { stdout } = await run(process.execPath, [join(root, 'cli', 'bin', 'toolplane.js')]);
  return stdout.trim();
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolplane-bin-fresh-'));
  await mkdir(join(root, 'cli', 'bin'), { recursive: true });
  await copyFile(bin, join(root, 'cli', 'bin', 'toolplane.js'));
  const manifest = (dependencies: Record<string, string>) =>
    JSON.stringify({ name: 'x', type: 'module', dependencies });
  await put('cli/package.json', manifest({ '@scope/dep': 'workspace:^' }), 0);
  await put('dep/package.json', manifest({}), 0);
  await put('cli/src/bin.ts', '', 300);
  await put('cli/src/commands/deep/a.ts', '', 300);
  await put('dep/src/sub/b.ts', '', 300);
  await put('cli/dist/index.js', '', 100);
  await put('dep/dist/index.js', '', 100);
  await put('cli/dist/bin.js', "console.log('compiled');", 100);
  await put('cli/dist/bundle/toolplane.js', "console.log('bundle');", 100);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('bin/toolplane.js in a clone', () => {
  it('runs the bundle when every source, nested folders included, is older than it', async () => {
    expect(await ran()).toBe('bundle');
  });

  it('finds a source in a nested folder of a dependency newer than the bundle', async () => {
    // Newer than the bundle, older than dist/index.js: the build is fresh, its bundle is not.
    await put('dep/src/sub/deeper/c.ts', '', 150);
    await put('cli/dist/bundle/toolplane.js', "console.log('bundle');", 200);
    expect(await ran()).toBe('compiled');
  });

  it('leaves test files out of the walk', async () => {
    await put('cli/src/commands/deep/a.test.ts', '', 0);
    expect(await ran()).toBe('bundle');
  });
});
