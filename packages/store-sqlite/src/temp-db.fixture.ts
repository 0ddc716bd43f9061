// Test support, left out of the build (*.fixture.ts): a temporary directory per test file, a
// fresh database path per test, and every store opened there closed when the file's tests end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** What {@link useTempDb} gives a test file. */
export interface TempDb {
  /** A path no store has used yet, in its own directory (created by the store). */
  fresh(): string;
  /** The directory itself, e.g. to show that opening a directory fails. */
  root(): string;
  /** Closes `store` when the file's tests end; returns it. */
  track<T extends { close(): unknown }>(store: T): T;
}

/** Registers the temporary directory's beforeAll/afterAll; call at the top of a test file. */
export function useTempDb(prefix: string): TempDb {
  let root = '';
  let counter = 0;
  const open: { close(): unknown }[] = [];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    for (const store of open.splice(0)) await store.close();
    await rm(root, { recursive: true, force: true });
  });
  return {
    fresh: () => join(root, `db-${String(++counter)}`, 'store.db'),
    root: () => root,
    track(store) {
      open.push(store);
      return store;
    },
  };
}
