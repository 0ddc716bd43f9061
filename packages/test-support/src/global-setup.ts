// The test run's global setup (root vitest.config.ts): child entries are bundled once, before any
// test file starts, and the folder is announced through the environment, which the workers and
// every child they start inherit.
import { BUNDLES_ENV } from '@toolplane/fixtures';
import { BUNDLE_DIR, buildChildBundles } from './child-bundles.js';

// Every project inherits the root's global setup; the first one builds, the others wait for it.
const BUILDING = Symbol.for('toolplane.test.child-bundles');
type Holder = { [BUILDING]?: Promise<void> };

/** Builds the child bundles and points `bundledEntry` of `@toolplane/fixtures` at them. */
export default async function setup(): Promise<void> {
  const holder = globalThis as Holder;
  holder[BUILDING] ??= buildChildBundles(BUNDLE_DIR).then(() => {
    process.env[BUNDLES_ENV] = BUNDLE_DIR;
  });
  await holder[BUILDING];
}
