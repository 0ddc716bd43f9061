import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite-store.js';
import { asStoreError } from './store-calls.js';
import { useTempDb } from './temp-db.fixture.js';

const temp = useTempDb('store-sqlite-calls-');

/** The error `work` throws, as {@link asStoreError} reports it. */
function reported(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return asStoreError(error, 'cannot write');
  }
  throw new Error('expected a SQLite failure');
}

describe('asStoreError', () => {
  it('says another writer held the lock past busyTimeoutMs, when a write waited too long', async () => {
    const path = temp.fresh();
    const store = temp.track(createSqliteStore({ path, busyTimeoutMs: 50 }));
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await store.putPrompt({ name: 'p', template: 't' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_error' });
      expect((error as Error).message).toContain('busyTimeoutMs');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await expect(store.putPrompt({ name: 'p', template: 't' })).resolves.toMatchObject({
      name: 'p',
    });
  });

  it('says what to do about a full disk and a file it may not write', async () => {
    const path = temp.fresh();
    await temp.track(createSqliteStore({ path })).close();
    const full = new Database(path);
    full.pragma(`max_page_count = ${String(full.pragma('page_count', { simple: true }))}`);
    const large = 'x'.repeat(64 * 1024);
    const whenFull = reported(() =>
      full.prepare('INSERT INTO prompts (name, data) VALUES (?, ?)').run('big', large),
    );
    full.close();
    expect(whenFull).toMatchObject({ code: 'store_error' });
    expect(whenFull.message).toContain('full; free space');

    const readOnly = new Database(path, { readonly: true });
    const whenReadOnly = reported(() => readOnly.prepare('DELETE FROM prompts').run());
    readOnly.close();
    expect(whenReadOnly.message).toContain('may write the file and its directory');
  });
});
