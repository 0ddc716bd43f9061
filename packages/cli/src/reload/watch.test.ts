import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { watchConfigFile } from './watch.js';

const stops: (() => void)[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A watcher of `file` and a promise of its next call. */
function watched(file: string): { next: () => Promise<void> } {
  let wake: () => void = () => undefined;
  stops.push(
    watchConfigFile(
      file,
      () => {
        wake();
      },
      { debounceMs: 20 },
    ),
  );
  return { next: () => new Promise<void>((resolve) => (wake = resolve)) };
}

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolplane-watch-'));
  dirs.push(dir);
  return dir;
}

describe('watchConfigFile', () => {
  it('hears a save in place and a save by rename', async () => {
    const dir = await scratch();
    const file = join(dir, 'toolplane.config.yaml');
    await writeFile(file, 'a: 1\n');
    const watch = watched(file);
    let heard = watch.next();
    await writeFile(file, 'a: 2\n');
    await heard;
    heard = watch.next();
    await writeFile(join(dir, '.new'), 'a: 3\n');
    await rename(join(dir, '.new'), file);
    await heard;
  });

  it('hears a ConfigMap-style update: the link to the data folder swapped', async () => {
    // What Kubernetes mounts: file -> ..data/file, ..data -> a folder per version.
    const dir = await scratch();
    for (const version of ['v1', 'v2']) {
      await mkdir(join(dir, version));
      await writeFile(join(dir, version, 'toolplane.config.yaml'), `version: ${version}\n`);
    }
    await symlink('v1', join(dir, '..data'));
    const file = join(dir, 'toolplane.config.yaml');
    await symlink(join('..data', 'toolplane.config.yaml'), file);
    const watch = watched(file);

    let heard = watch.next();
    await symlink('v2', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await heard;

    // Then written through the link: the file in v2 changes, nothing in the link's folder.
    heard = watch.next();
    await writeFile(file, 'version: v2, edited\n');
    await heard;
  });

  it('hears an edit of the file a link in another folder leads to', async () => {
    const dir = await scratch();
    await mkdir(join(dir, 'real'));
    await mkdir(join(dir, 'conf'));
    const real = join(dir, 'real', 'gateway.yaml');
    await writeFile(real, 'a: 1\n');
    const file = join(dir, 'conf', 'toolplane.config.yaml');
    await symlink(real, file);
    const watch = watched(file);
    const heard = watch.next();
    await writeFile(real, 'a: 2\n');
    await heard;
  });
});
