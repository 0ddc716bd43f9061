// The test run's global setup (root vitest.config.ts): child entries are bundled once, before any
// test file starts, and the folder is announced through the environment, which the workers and
// every child they start inherit. So is the folder of the run's PostgreSQL template cluster.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BUNDLES_ENV } from '@toolplane/fixtures';
import { BUNDLE_DIR, buildChildBundles } from './child-bundles.js';
import { makePostgresTemplate } from './postgres-template.js';
import { removeStale } from './stale-folders.js';

// Every project inherits the root's global setup; the first one builds, the others wait for it.
const BUILDING = Symbol.for('toolplane.test.child-bundles');
type Holder = { [BUILDING]?: Promise<readonly string[]> };

/**
 * Builds the child bundles and points `bundledEntry` of `@toolplane/fixtures` at them, and makes
 * the run's PostgreSQL template folder; resolves with the teardown that removes both. Each run
 * builds into a folder of its own (named by its process ID), so two runs in one checkout (a
 * single file while the suite runs) never delete the bundles the other is starting children from.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const holder = globalThis as Holder;
  holder[BUILDING] ??= (async () => {
    await removeStale(BUNDLE_DIR, /^(\d+)$/);
    const dir = join(BUNDLE_DIR, String(process.pid));
    const [template] = await Promise.all([makePostgresTemplate(), buildChildBundles(dir)]);
    process.env[BUNDLES_ENV] = dir;
    return [dir, template];
  })();
  const dirs = await holder[BUILDING];
  return async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };
}
