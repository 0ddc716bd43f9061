import {
  compareKeys,
  createChangeEmitter,
  resourceInfo,
  validatePrompt,
  validateResource,
  type Prompt,
  type Resource,
  type ResourceInfo,
  type Store,
  type StoreCallOptions,
  type StoreChange,
} from '@toolplane/toolkit';
import { optionKeys, ToolError } from '@toolplane/toolmodel';
import type Database from 'better-sqlite3';
import { emptyStandIns, openSqliteFile } from './sqlite-open.js';
import { asStoreError, runStoreCall, watchDataVersion } from './store-calls.js';
import { checkSqliteOptions } from './sqlite-options.js';

/** Options for {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * Database file; its directory is created when missing. `':memory:'` keeps everything in
   * memory. Default `.toolplane/toolplane.db`, relative to the working directory.
   */
  readonly path?: string;
  /**
   * How often, in milliseconds, to look for changes made by other processes while anyone is
   * subscribed. `0` turns watching off. Default 1000.
   */
  readonly pollIntervalMs?: number;
  /**
   * `'full'` (default) syncs every commit to disk, so a write survives power loss; `'normal'`
   * skips that sync (about 20x faster writes) and a write still survives its process being
   * killed, but not the machine losing power.
   */
  readonly synchronous?: 'full' | 'normal';
  /** How long a write waits for another writer's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /**
   * Open the file read-only even when this user could write it (default false: read-only only
   * when it cannot, see {@link SqliteStore.readOnly}). Every write is then refused.
   */
  readonly readOnly?: boolean;
}

/** A {@link Store} in a SQLite file, made by {@link createSqliteStore}. */
export interface SqliteStore extends Store {
  /**
   * `undefined` when the file was opened for writing. Otherwise the store is read-only and this
   * says why (`readOnly: true`, a file or directory this user may not write, a read-only file
   * system): reads work, and every write is refused with a `store_error` of this message.
   */
  readonly readOnly: string | undefined;
}

/** Default database file of {@link createSqliteStore}. */
export const DEFAULT_SQLITE_PATH = '.toolplane/toolplane.db';

/**
 * The schema, one entry per version: entry `i` takes `PRAGMA user_version` from `i` to `i + 1`.
 * Entries are only ever appended.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE prompts (
     name TEXT PRIMARY KEY,
     data TEXT NOT NULL
   ) STRICT;
   CREATE TABLE resources (
     uri TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     title TEXT,
     description TEXT,
     mime_type TEXT,
     size INTEGER NOT NULL,
     text TEXT,
     blob BLOB,
     CHECK ((text IS NULL) <> (blob IS NULL))
   ) STRICT;
   -- The change log lets other processes see what changed, not only that something did.
   CREATE TABLE changes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     kind TEXT NOT NULL,
     op TEXT NOT NULL,
     key TEXT NOT NULL,
     name TEXT NOT NULL
   ) STRICT;`,
  // OAuth credentials of connectors, each row sealed with AES-256-GCM: nothing in plain text.
  `CREATE TABLE oauth_credentials (
     key TEXT PRIMARY KEY,
     sealed TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   ) STRICT;`,
];

// Enough for any poller that is not stalled for minutes; older entries are pruned on write.
const CHANGE_LOG_SIZE = 10_000;

interface ResourceRow {
  uri: string;
  name: string;
  title: string | null;
  description: string | null;
  mime_type: string | null;
  size: number;
  text: string | null;
  blob: Buffer | null;
}

interface ChangeRow {
  seq: number;
  kind: string;
  op: string;
  key: string;
  name: string;
}

const KNOWN = optionKeys<SqliteStoreOptions>({
  path: true,
  pollIntervalMs: true,
  synchronous: true,
  busyTimeoutMs: true,
  readOnly: true,
});

/**
 * Creates a {@link Store} in one SQLite file (better-sqlite3, WAL mode, `synchronous=FULL`): a
 * write whose promise resolved survives the process being killed. Several instances and processes
 * can share the file; each write is one transaction, so none is lost. Subscribers see this
 * instance's changes at once and other processes' changes within `pollIntervalMs`.
 *
 * A file this user can read but not write (another user's, mode 0444, on a read-only mount) is
 * opened read-only: reads work and writes are refused (see {@link SqliteStore.readOnly}).
 *
 * @throws {ToolError} `store_error` when the file cannot be opened or was written by a newer
 * version of this package; `invalid_argument` for `readOnly` in memory.
 */
export function createSqliteStore(options: SqliteStoreOptions = {}): SqliteStore {
  checkSqliteOptions(options, KNOWN, 'createSqliteStore');
  const path = options.path ?? DEFAULT_SQLITE_PATH;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const file = openSqliteFile({
    path,
    readOnly: options.readOnly,
    busyTimeoutMs: options.busyTimeoutMs,
    synchronous: options.synchronous ?? 'full',
    what: 'store',
  });
  const { db } = file;
  try {
    migrate(db, path, file.readOnly !== undefined);
  } catch (error) {
    db.close();
    throw asStoreError(error, `cannot open the SQLite store at ${JSON.stringify(path)}`);
  }

  const sql = {
    listPrompts: db.prepare<[], { data: string }>('SELECT data FROM prompts'),
    getPrompt: db.prepare<[string], { data: string }>('SELECT data FROM prompts WHERE name = ?'),
    putPrompt: db.prepare<[string, string]>(
      'INSERT INTO prompts (name, data) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET data = excluded.data',
    ),
    deletePrompt: db.prepare<[string]>('DELETE FROM prompts WHERE name = ?'),
    listResources: db.prepare<[], Omit<ResourceRow, 'text' | 'blob'>>(
      'SELECT uri, name, title, description, mime_type, size FROM resources',
    ),
    getResource: db.prepare<[string], ResourceRow>('SELECT * FROM resources WHERE uri = ?'),
    resourceName: db.prepare<[string], { name: string }>(
      'SELECT name FROM resources WHERE uri = ?',
    ),
    putResource: db.prepare<
      [
        string,
        string,
        string | null,
        string | null,
        string | null,
        number,
        string | null,
        Buffer | null,
      ]
    >(
      `INSERT INTO resources (uri, name, title, description, mime_type, size, text, blob)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (uri) DO UPDATE SET name = excluded.name, title = excluded.title,
         description = excluded.description, mime_type = excluded.mime_type,
         size = excluded.size, text = excluded.text, blob = excluded.blob`,
    ),
    deleteResource: db.prepare<[string]>('DELETE FROM resources WHERE uri = ?'),
    logChange: db.prepare<[string, string, string, string]>(
      'INSERT INTO changes (kind, op, key, name) VALUES (?, ?, ?, ?)',
    ),
    pruneChanges: db.prepare<[number]>('DELETE FROM changes WHERE seq <= ?'),
    lastSeq: db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM changes'),
    changesSince: db.prepare<[number], ChangeRow>(
      'SELECT seq, kind, op, key, name FROM changes WHERE seq > ? ORDER BY seq',
    ),
  };

  const emitter = createChangeEmitter();
  let closed = false;
  let seenSeq = 0;
  // Our own writes that landed after another process's not yet polled ones: skipped when polled.
  const ownSeqs = new Set<number>();

  const log = (change: StoreChange): number => {
    const key = change.kind === 'prompt' ? change.name : change.uri;
    const seq = Number(sql.logChange.run(change.kind, change.op, key, change.name).lastInsertRowid);
    if (seq > CHANGE_LOG_SIZE) sql.pruneChanges.run(seq - CHANGE_LOG_SIZE);
    return seq;
  };

  const committed = (change: StoreChange, seq: number): void => {
    if (!watch.watching || seq === seenSeq + 1) seenSeq = seq;
    else ownSeqs.add(seq);
    emitter.emit(change);
  };

  const watch = watchDataVersion(db, {
    intervalMs: pollIntervalMs,
    // Watching starts from now: what happened while nobody listened is not replayed.
    start: () => {
      seenSeq = sql.lastSeq.get()?.seq ?? 0;
      ownSeqs.clear();
    },
    changed: () => {
      for (const row of sql.changesSince.all(seenSeq)) {
        seenSeq = row.seq;
        if (ownSeqs.delete(row.seq)) continue;
        emitter.emit(toChange(row));
      }
    },
    what: 'watching the SQLite store for changes failed',
  });

  const run = <T>(options: StoreCallOptions | undefined, body: () => T): Promise<T> =>
    runStoreCall(
      options,
      {
        closed: () => (closed ? `the SQLite store at ${path} is closed` : undefined),
        failure: `the SQLite store at ${path} failed`,
      },
      body,
    );

  const putPrompt = db.transaction((prompt: Prompt) => {
    sql.putPrompt.run(prompt.name, JSON.stringify(prompt));
    return log({ kind: 'prompt', op: 'put', name: prompt.name });
  });
  const deletePrompt = db.transaction((name: string) =>
    sql.deletePrompt.run(name).changes === 0
      ? undefined
      : log({ kind: 'prompt', op: 'delete', name }),
  );
  const putResource = db.transaction((resource: Resource) => {
    sql.putResource.run(
      resource.uri,
      resource.name,
      resource.title ?? null,
      resource.description ?? null,
      resource.mimeType ?? null,
      resource.size ?? 0,
      resource.text ?? null,
      resource.blob === undefined ? null : Buffer.from(resource.blob, 'base64'),
    );
    return log({ kind: 'resource', op: 'put', uri: resource.uri, name: resource.name });
  });
  const deleteResource = db.transaction((uri: string) => {
    const name = sql.resourceName.get(uri)?.name;
    if (name === undefined) return undefined;
    sql.deleteResource.run(uri);
    const change: StoreChange = { kind: 'resource', op: 'delete', uri, name };
    return { change, seq: log(change) };
  });

  return {
    readOnly: file.readOnly,
    listPrompts: (options) =>
      run(options, () =>
        sql.listPrompts
          .all()
          .map((row) => JSON.parse(row.data) as Prompt)
          .sort((a, b) => compareKeys(a.name, b.name)),
      ),
    getPrompt: (name, options) =>
      run(options, () => {
        const row = sql.getPrompt.get(name);
        return row === undefined ? undefined : (JSON.parse(row.data) as Prompt);
      }),
    putPrompt: (prompt, options) =>
      run(options, () => {
        file.writable();
        const stored = validatePrompt(prompt);
        // IMMEDIATE takes the write lock up front, so a concurrent writer waits instead of
        // failing half-way with SQLITE_BUSY.
        const seq = putPrompt.immediate(stored);
        committed({ kind: 'prompt', op: 'put', name: stored.name }, seq);
        return stored;
      }),
    deletePrompt: (name, options) =>
      run(options, () => {
        file.writable();
        const seq = deletePrompt.immediate(name);
        if (seq === undefined) return false;
        committed({ kind: 'prompt', op: 'delete', name }, seq);
        return true;
      }),
    listResources: (options) =>
      run(options, () =>
        sql.listResources
          .all()
          .map((row) => toResourceInfo(row))
          .sort((a, b) => compareKeys(a.uri, b.uri)),
      ),
    getResource: (uri, options) =>
      run(options, () => {
        const row = sql.getResource.get(uri);
        return row === undefined ? undefined : toResource(row);
      }),
    putResource: (resource, options) =>
      run(options, () => {
        file.writable();
        const stored = validateResource(resource);
        const seq = putResource.immediate(stored);
        committed({ kind: 'resource', op: 'put', uri: stored.uri, name: stored.name }, seq);
        return resourceInfo(stored);
      }),
    deleteResource: (uri, options) =>
      run(options, () => {
        file.writable();
        const result = deleteResource.immediate(uri);
        if (result === undefined) return false;
        committed(result.change, result.seq);
        return true;
      }),
    subscribe(listener) {
      const unsubscribe = emitter.subscribe(listener);
      const unwatch = watch.add();
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        unsubscribe();
        unwatch();
      };
    },
    close() {
      if (!closed) {
        closed = true;
        watch.close();
        emitter.clear();
        db.close();
      }
      return Promise.resolve();
    },
  };
}

/**
 * Brings the file's schema up to date (see {@link MIGRATIONS}). A `readOnly` file is left as it
 * is: the tables of the versions it lacks are read as empty. @internal
 */
export function migrate(db: Database.Database, path: string, readOnly = false): void {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  const newer = (from: number): ToolError =>
    new ToolError(
      'store_error',
      `the SQLite store at ${path} has schema version ${from}, newer than this @toolplane/store-sqlite knows (${MIGRATIONS.length}); upgrade the package`,
    );
  const from = version();
  if (from === MIGRATIONS.length) return;
  if (readOnly) {
    if (from > MIGRATIONS.length) throw newer(from);
    emptyStandIns(db, MIGRATIONS.slice(from).join(';'));
    return;
  }
  // Re-read inside the write lock: another process may have migrated while we waited for it.
  db.transaction(() => {
    const locked = version();
    if (locked > MIGRATIONS.length) throw newer(locked);
    for (let next = locked; next < MIGRATIONS.length; next++) {
      db.exec(MIGRATIONS[next] ?? '');
      db.pragma(`user_version = ${next + 1}`);
    }
  }).immediate();
}

function toChange(row: ChangeRow): StoreChange {
  const op = row.op === 'delete' ? 'delete' : 'put';
  return row.kind === 'prompt'
    ? { kind: 'prompt', op, name: row.key }
    : { kind: 'resource', op, uri: row.key, name: row.name };
}

function toResourceInfo(row: Omit<ResourceRow, 'text' | 'blob'>): ResourceInfo {
  const info: { -readonly [K in keyof ResourceInfo]: ResourceInfo[K] } = {
    uri: row.uri,
    name: row.name,
  };
  if (row.title !== null) info.title = row.title;
  if (row.description !== null) info.description = row.description;
  if (row.mime_type !== null) info.mimeType = row.mime_type;
  info.size = row.size;
  return info;
}

function toResource(row: ResourceRow): Resource {
  const info = toResourceInfo(row);
  return row.text !== null
    ? { ...info, text: row.text }
    : { ...info, blob: (row.blob ?? Buffer.alloc(0)).toString('base64') };
}
