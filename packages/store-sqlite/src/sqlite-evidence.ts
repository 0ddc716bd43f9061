import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EvidenceStore, UsageEvidence } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import Database from 'better-sqlite3';
import { DEFAULT_SQLITE_PATH } from './sqlite-store.js';
import { asStoreError } from './store-calls.js';

/** Options for {@link createSqliteEvidenceStore}. */
export interface SqliteEvidenceStoreOptions {
  /** Database file, which may be shared with {@link createSqliteStore}'s. Default `.toolplane/toolplane.db`. */
  readonly path?: string;
  /** How long a write waits for another writer's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens the SQLite file of a search cache (evidence, vectors), creating its table when missing.
 * @internal
 */
export function openSearchDb(
  options: { readonly path?: string; readonly busyTimeoutMs?: number },
  schema: string,
  what: string,
): Database.Database {
  const path = options.path ?? DEFAULT_SQLITE_PATH;
  try {
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    db.pragma('journal_mode = WAL');
    db.exec(schema);
    return db;
  } catch (error) {
    throw asStoreError(error, `cannot open the SQLite ${what} at ${JSON.stringify(path)}`);
  }
}

/** Runs `work` as a promise, its failure a `store_error`. @internal */
export function settle<T>(what: string, work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(asStoreError(error, `cannot ${what}`));
  }
}

/** An {@link EvidenceStore} on SQLite, with {@link SqliteEvidenceStore.close}. */
export interface SqliteEvidenceStore extends EvidenceStore {
  close(): void;
}

// Its own table, created when missing: evidence is a cache of use that can be dropped at any
// time, so it stays out of the store's versioned schema.
const SCHEMA = `CREATE TABLE IF NOT EXISTS search_evidence (
  tool_id TEXT NOT NULL,
  term TEXT NOT NULL,
  weight REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (tool_id, term)
) WITHOUT ROWID`;

interface Row {
  tool_id: string;
  term: string;
  weight: number;
  updated_at: number;
}

/**
 * Keeps toolindex's learned search evidence (see `createLearningSearcher`) in the
 * `search_evidence` table of a SQLite file, so it outlives restarts and is shared by every
 * process using the file. A row is replaced only by a newer one, so two processes recording at
 * once keep the latest evidence.
 *
 * @throws {ToolError} `store_error` when the file cannot be opened; its methods reject with
 * `store_error` when SQLite fails and `cancelled` when a load's signal is aborted.
 */
export function createSqliteEvidenceStore(
  options: SqliteEvidenceStoreOptions = {},
): SqliteEvidenceStore {
  const db = openSearchDb(options, SCHEMA, 'evidence store');
  const sql = {
    all: db.prepare<[], Row>('SELECT tool_id, term, weight, updated_at FROM search_evidence'),
    put: db.prepare<[string, string, number, number]>(
      `INSERT INTO search_evidence (tool_id, term, weight, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (tool_id, term) DO UPDATE SET weight = excluded.weight,
         updated_at = excluded.updated_at WHERE excluded.updated_at >= search_evidence.updated_at`,
    ),
    remove: db.prepare<[string, string]>(
      'DELETE FROM search_evidence WHERE tool_id = ? AND term = ?',
    ),
    forgetTool: db.prepare<[string]>('DELETE FROM search_evidence WHERE tool_id = ?'),
    forgetAll: db.prepare('DELETE FROM search_evidence'),
  };
  const run = <T>(what: string, work: () => T): Promise<T> =>
    settle(`${what} search evidence`, work);
  const saveAll = db.transaction((rows: readonly UsageEvidence[]) => {
    for (const row of rows) sql.put.run(row.toolId, row.term, row.weight, row.updatedAt);
  });
  const removeAll = db.transaction((rows: readonly Pick<UsageEvidence, 'toolId' | 'term'>[]) => {
    for (const row of rows) sql.remove.run(row.toolId, row.term);
  });
  return {
    load: (loadOptions = {}) => {
      if (loadOptions.signal?.aborted === true) {
        return Promise.reject(new ToolError('cancelled', 'loading search evidence was cancelled'));
      }
      return run('load', () =>
        sql.all.all().map((row) => ({
          toolId: row.tool_id,
          term: row.term,
          weight: row.weight,
          updatedAt: row.updated_at,
        })),
      );
    },
    save: (rows) =>
      run('save', () => {
        saveAll(rows);
      }),
    remove: (rows) =>
      run('remove', () => {
        removeAll(rows);
      }),
    forget: (toolId) =>
      run('forget', () => {
        if (toolId === undefined) sql.forgetAll.run();
        else sql.forgetTool.run(toolId);
      }),
    close: () => {
      db.close();
    },
  };
}
