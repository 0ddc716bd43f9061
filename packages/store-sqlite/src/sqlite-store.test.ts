import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreChange } from '@toolplane/toolkit';
import { describeStoreContract } from '@toolplane/toolkit/testing/vitest';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChildren, type FixtureChild } from './child.fixture.js';
import { createSqliteStore } from './sqlite-store.js';

let root: string;
let counter = 0;
const freshPath = (): string => join(root, `case-${++counter}`, 'store.db');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'store-sqlite-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let contractPath = '';
describeStoreContract('createSqliteStore on a file', {
  create: () => createSqliteStore({ path: (contractPath = freshPath()) }),
  reopen: () => createSqliteStore({ path: contractPath }),
});

describeStoreContract('createSqliteStore in memory', {
  create: () => createSqliteStore({ path: ':memory:' }),
});

const children = useChildren();

/** Starts the writer fixture; resolves with the child once it has printed its "written" line. */
async function startWriter(args: string[]): Promise<FixtureChild> {
  const writer = children.start('./writer.fixture.ts', args);
  await writer.line('written');
  return writer;
}

describe('createSqliteStore', () => {
  it('creates the parent directories and a WAL-mode file at the latest schema version (2: with oauth_credentials)', async () => {
    const path = join(root, 'deep', 'er', 'nested.db');
    const store = createSqliteStore({ path });
    await store.putPrompt({ name: 'p', template: 't' });
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });

  it('opens a file it already migrated without changing it', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    const store = createSqliteStore({ path });
    expect(await store.listPrompts()).toEqual([]);
    await store.close();
  });

  it('throws store_error for a file written by a newer schema version', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(await rejectionCodeOf(() => createSqliteStore({ path }))).toBe('store_error');
  });

  it('throws store_error for a file that is not a database', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path });
    await store.close();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path, 'this is not a SQLite database, only text '.repeat(100));
    expect(await rejectionCodeOf(() => createSqliteStore({ path }))).toBe('store_error');
  });

  it.each(['full', 'normal'])(
    'keeps every write that returned when the writer is killed with SIGKILL (synchronous: %s)',
    async (synchronous) => {
      const path = freshPath();
      const { child, exited } = await startWriter([path, 'durable', '50', 'hold', synchronous]);
      child.kill('SIGKILL');
      expect(await exited).toBeNull();
      expect(existsSync(`${path}-wal`)).toBe(true);
      const store = createSqliteStore({ path });
      const names = (await store.listPrompts()).map((p) => p.name);
      expect(names).toHaveLength(50);
      expect(names).toContain('durable-49');
      await store.close();
    },
  );

  it('loses no update when two processes write to one file at the same time', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    const [one, two] = await Promise.all([
      startWriter([path, 'one', '150']),
      startWriter([path, 'two', '150']),
    ]);
    expect(await one.exited).toBe(0);
    expect(await two.exited).toBe(0);
    const store = createSqliteStore({ path });
    const names = new Set((await store.listPrompts()).map((p) => p.name));
    expect(names.size).toBe(300);
    expect(names.has('one-149') && names.has('two-149')).toBe(true);
    await store.close();
  });

  it("tells subscribers about another process's changes, and its own exactly once", async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, pollIntervalMs: 10 });
    const seen: StoreChange[] = [];
    let notify = (): void => undefined;
    const stop = store.subscribe((change) => {
      seen.push(change);
      notify();
    });
    await store.putPrompt({ name: 'mine', template: 't' });
    const { exited } = await startWriter([path, 'theirs', '3']);
    expect(await exited).toBe(0);
    await new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => {
        reject(new Error(`saw only ${JSON.stringify(seen)}`));
      }, 10_000);
      notify = () => {
        if (seen.length >= 4) {
          clearTimeout(timeout);
          resolve();
        }
      };
      notify();
    });
    await store.deletePrompt('theirs-0');
    stop();
    expect(seen).toEqual([
      { kind: 'prompt', op: 'put', name: 'mine' },
      { kind: 'prompt', op: 'put', name: 'theirs-0' },
      { kind: 'prompt', op: 'put', name: 'theirs-1' },
      { kind: 'prompt', op: 'put', name: 'theirs-2' },
      { kind: 'prompt', op: 'delete', name: 'theirs-0' },
    ]);
    await store.close();
  });

  it('sees resource changes made through another instance on the same file', async () => {
    const path = freshPath();
    const watcher = createSqliteStore({ path, pollIntervalMs: 10 });
    const writer2 = createSqliteStore({ path });
    const change = new Promise<StoreChange>((resolve) => {
      watcher.subscribe(resolve);
    });
    await writer2.putResource({ uri: 'notes://a', name: 'a', text: 'x' });
    expect(await change).toEqual({ kind: 'resource', op: 'put', uri: 'notes://a', name: 'a' });
    await writer2.close();
    await watcher.close();
  });
});
