import { randomUUID } from 'node:crypto';
import {
  addEvidence,
  checkEvidenceKeys,
  checkEvidenceRows,
  createForgetListeners,
  keepHeaviest,
  type EvidenceStore,
  type UsageEvidence,
} from '@toolplane/toolindex';
import { optionKeys, ToolError } from '@toolplane/toolmodel';
import { DEFAULT_SQLITE_PATH } from './sqlite-store.js';
import { emptyStandIns, openSqliteFile, type SqliteFile } from './sqlite-open.js';
import { asStoreError, watchDataVersion } from './store-calls.js';
import { checkSqliteOptions } from './sqlite-options.js';

/** Options for {@link createSqliteEvidenceStore}. */
export interface SqliteEvidenceStoreOptions {
  /** Database file, which may be shared with {@link createSqliteStore}'s. Default `.toolplane/toolplane.db`. */
  readonly path?: string;
  /** How long a write waits for another writer's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /**
   * How often, while someone listens for forgets ({@link EvidenceStore.onForget}), the file is
   * checked for other processes' forgets. Default 250 ms.
   */
  readonly pollIntervalMs?: number;
  /**
   * Open the file read-only even when this user could write it (default false: read-only only
   * when it cannot). Evidence is then loaded, and every write refused.
   */
  readonly readOnly?: boolean;
}

/**
 * Opens the SQLite file of a search cache (evidence, vectors) or of pins, creating its tables when
 * missing; read-only, they are read as empty.
 * @internal
 */
export function openSearchDb(
  options: {
    readonly path?: string;
    readonly busyTimeoutMs?: number;
    readonly readOnly?: boolean;
  },
  schema: string,
  what: string,
): SqliteFile {
  const path = options.path ?? DEFAULT_SQLITE_PATH;
  const file = openSqliteFile({
    path,
    readOnly: options.readOnly,
    busyTimeoutMs: options.busyTimeoutMs,
    what,
  });
  try {
    if (file.readOnly === undefined) file.db.exec(schema);
    else emptyStandIns(file.db, schema);
    return file;
  } catch (error) {
    file.db.close();
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
  add: NonNullable<EvidenceStore['add']>;
  onForget: NonNullable<EvidenceStore['onForget']>;
  /**
   * `undefined` when the file was opened for writing; else why it is read-only, the message of
   * the `store_error` every write (`save`, `add`, `remove`, `forget`) is refused with.
   */
  readonly readOnly: string | undefined;
  close(): void;
}

// Its own tables, created when missing: evidence is a cache of use that can be dropped at any
// time, so it stays out of the store's versioned schema. Each forget leaves a mark (its scope:
// `*` for every tool, `tool:<id>` for one; a forget of all replaces the others) with a rising
// sequence number, which is how other processes on the file hear of it.
const SCHEMA = `CREATE TABLE IF NOT EXISTS search_evidence (
  tool_id TEXT NOT NULL,
  term TEXT NOT NULL,
  weight REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (tool_id, term)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS search_evidence_forgets (
  scope TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  writer TEXT NOT NULL
) WITHOUT ROWID`;

interface Row {
  tool_id: string;
  term: string;
  weight: number;
  updated_at: number;
}

interface Mark {
  scope: string;
  seq: number;
  writer: string;
}

const ALL = '*';
const TOOL = 'tool:';

const KNOWN = optionKeys<SqliteEvidenceStoreOptions>({
  path: true,
  busyTimeoutMs: true,
  pollIntervalMs: true,
  readOnly: true,
});

/**
 * Keeps toolindex's learned search evidence (see `createLearningSearcher`) in the
 * `search_evidence` table of a SQLite file, so it outlives restarts and is shared by every
 * process using the file. A row is replaced only by a newer one; `add` sums, so two processes
 * recording at once both count. With `maxTermsPerTool`, an `add` also keeps each tool it names to
 * its heaviest rows, deleting the rest, in its write transaction (one writer of the file at a
 * time), so the bound holds on the shared rows. A forget in any process reaches every process listening on the
 * file ({@link EvidenceStore.onForget}): while someone listens, the file is polled
 * (`PRAGMA data_version`, a read of one page) every `pollIntervalMs`.
 *
 * @throws {ToolError} `store_error` when the file cannot be opened; its methods reject with
 * `store_error` when SQLite fails, `invalid_argument` for a bad `halfLifeMs` or
 * `maxTermsPerTool`, and `cancelled` when a load's signal is aborted.
 */
export function createSqliteEvidenceStore(
  options: SqliteEvidenceStoreOptions = {},
): SqliteEvidenceStore {
  checkSqliteOptions(options, KNOWN, 'createSqliteEvidenceStore');
  const file = openSearchDb(options, SCHEMA, 'evidence store');
  const { db } = file;
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
    ofTool: db.prepare<[string], Row>(
      'SELECT tool_id, term, weight, updated_at FROM search_evidence WHERE tool_id = ?',
    ),
    one: db.prepare<[string, string], Row>(
      'SELECT tool_id, term, weight, updated_at FROM search_evidence WHERE tool_id = ? AND term = ?',
    ),
    replace: db.prepare<[string, string, number, number]>(
      `INSERT OR REPLACE INTO search_evidence (tool_id, term, weight, updated_at)
       VALUES (?, ?, ?, ?)`,
    ),
    forgetTool: db.prepare<[string]>('DELETE FROM search_evidence WHERE tool_id = ?'),
    forgetAll: db.prepare('DELETE FROM search_evidence'),
    lastMark: db.prepare<[], { seq: number }>(
      'SELECT coalesce(max(seq), 0) AS seq FROM search_evidence_forgets',
    ),
    marksAfter: db.prepare<[number], Mark>(
      'SELECT scope, seq, writer FROM search_evidence_forgets WHERE seq > ? ORDER BY seq',
    ),
    dropMarks: db.prepare('DELETE FROM search_evidence_forgets'),
    mark: db.prepare<[string, number, string]>(
      'INSERT OR REPLACE INTO search_evidence_forgets (scope, seq, writer) VALUES (?, ?, ?)',
    ),
  };
  const instance = randomUUID();
  const run = <T>(what: string, work: () => T): Promise<T> =>
    settle(`${what} search evidence`, work);
  const write = <T>(what: string, work: () => T): Promise<T> =>
    run(what, () => {
      file.writable();
      return work();
    });
  const saveAll = db.transaction((rows: readonly UsageEvidence[]) => {
    for (const row of rows) sql.put.run(row.toolId, row.term, row.weight, row.updatedAt);
  });
  const fromRow = (row: Row): UsageEvidence => ({
    toolId: row.tool_id,
    term: row.term,
    weight: row.weight,
    updatedAt: row.updated_at,
  });
  // Run IMMEDIATE: writers on the file take turns, so each bounds what the others committed.
  const addAll = db.transaction(
    (rows: readonly UsageEvidence[], halfLifeMs: number, maxTermsPerTool: number | undefined) => {
      for (const row of rows) {
        const kept = sql.one.get(row.toolId, row.term);
        const sum = addEvidence(kept === undefined ? undefined : fromRow(kept), row, halfLifeMs);
        sql.replace.run(sum.toolId, sum.term, sum.weight, sum.updatedAt);
      }
      if (maxTermsPerTool === undefined) return undefined;
      const held: UsageEvidence[] = [];
      for (const toolId of new Set(rows.map((row) => row.toolId))) {
        const bounded = keepHeaviest(
          sql.ofTool.all(toolId).map(fromRow),
          maxTermsPerTool,
          halfLifeMs,
        );
        for (const row of bounded.evicted) sql.remove.run(row.toolId, row.term);
        held.push(...bounded.kept);
      }
      return held;
    },
  );
  const removeAll = db.transaction((rows: readonly Pick<UsageEvidence, 'toolId' | 'term'>[]) => {
    for (const row of rows) sql.remove.run(row.toolId, row.term);
  });
  const forget = db.transaction((toolId: string | undefined) => {
    const seq = (sql.lastMark.get()?.seq ?? 0) + 1;
    if (toolId === undefined) {
      sql.forgetAll.run();
      sql.dropMarks.run();
      sql.mark.run(ALL, seq, instance);
    } else {
      sql.forgetTool.run(toolId);
      sql.mark.run(`${TOOL}${toolId}`, seq, instance);
    }
  });

  const listeners = createForgetListeners();
  let seen = 0;
  const watch = watchDataVersion(db, {
    intervalMs: options.pollIntervalMs ?? 250,
    start: () => {
      seen = sql.lastMark.get()?.seq ?? 0;
    },
    changed: () => {
      for (const mark of sql.marksAfter.all(seen)) {
        seen = mark.seq;
        // This process's own forgets were told as they committed.
        if (mark.writer === instance) continue;
        listeners.tell({
          toolId: mark.scope === ALL ? undefined : mark.scope.slice(TOOL.length),
        });
      }
    },
    what: 'watching the SQLite evidence store for forgets failed',
  });
  return {
    readOnly: file.readOnly,
    load: (loadOptions = {}) => {
      if (loadOptions.signal?.aborted === true) {
        return Promise.reject(new ToolError('cancelled', 'loading search evidence was cancelled'));
      }
      return run('load', () => sql.all.all().map(fromRow));
    },
    save: (rows) =>
      write('save', () => {
        checkEvidenceRows(rows);
        saveAll(rows);
      }),
    remove: (rows) =>
      write('remove', () => {
        checkEvidenceKeys(rows);
        removeAll(rows);
      }),
    add: (rows, addOptions) =>
      write('add', () => {
        checkEvidenceRows(rows);
        return addAll.immediate(rows, addOptions.halfLifeMs, addOptions.maxTermsPerTool);
      }),
    forget: (toolId) =>
      write('forget', () => {
        forget.immediate(toolId);
        listeners.tell({ toolId });
      }),
    onForget: (listener) => {
      const off = listeners.add(listener);
      const unwatch = watch.add();
      return () => {
        off();
        unwatch();
      };
    },
    close: () => {
      watch.close();
      listeners.clear();
      db.close();
    },
  };
}
