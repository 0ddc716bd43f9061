// The test run's global setup (root vitest.config.ts): child entries are bundled once, before any
// test file starts, and the folder is announced through the environment, which the workers and
// every child they start inherit.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BUNDLES_ENV } from '@toolplane/fixtures';
import { BUNDLE_DIR, buildChildBundles } from './child-bundles.js';

// Every project inherits the root's global setup; the first one builds, the others wait for it.
const BUILDING = Symbol.for('toolplane.test.child-bundles');
type Holder = { [BUILDING]?: Promise<string> };

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the bundle folders of runs that ended without their teardown (killed). */
async function removeStale(root: string): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && !alive(Number(name)))
      .map((name) => rm(join(root, name), { recursive: true, force: true })),
  );
}

/**
 * Builds the child bundles and points `bundledEntry` of `@toolplane/fixtures` at them; resolves
 * with the teardown that removes them. Each run builds into a folder of its own (named by its
 * process ID), so two runs in one checkout (a single file while the suite runs) never delete
 * the bundles the other is starting children from.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const holder = globalThis as Holder;
  holder[BUILDING] ??= (async () => {
    await removeStale(BUNDLE_DIR);
    const dir = join(BUNDLE_DIR, String(process.pid));
    await buildChildBundles(dir);
    process.env[BUNDLES_ENV] = dir;
    return dir;
  })();
  const dir = await holder[BUILDING];
  return () => rm(dir, { recursive: true, force: true });
}
