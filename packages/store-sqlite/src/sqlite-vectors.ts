import type { VectorCache } from '@toolplane/toolindex';
import { optionKeys } from '@toolplane/toolmodel';
import { openSearchDb, settle } from './sqlite-evidence.js';
import { checkSqliteOptions } from './sqlite-options.js';

/** Options for {@link createSqliteVectorCache}. */
export interface SqliteVectorCacheOptions {
  /** Database file, which may be shared with the other stores'. Default `.toolplane/toolplane.db`. */
  readonly path?: string;
  /** How long a write waits for another writer's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /**
   * Open the file read-only even when this user could write it (default false: read-only only
   * when it cannot). Vectors are then read, and every `put` refused.
   */
  readonly readOnly?: boolean;
}

/** A {@link VectorCache} on SQLite, with {@link SqliteVectorCache.close}. */
export interface SqliteVectorCache extends VectorCache {
  /**
   * `undefined` when the file was opened for writing; else why it is read-only, the message of
   * the `store_error` every `put` is refused with.
   */
  readonly readOnly: string | undefined;
  close(): void;
}

// A cache: its own table, created when missing, outside the store's versioned schema.
const SCHEMA = `CREATE TABLE IF NOT EXISTS embedding_vectors (
  fingerprint TEXT PRIMARY KEY,
  vector BLOB NOT NULL
) WITHOUT ROWID`;

const KNOWN = optionKeys<SqliteVectorCacheOptions>({
  path: true,
  busyTimeoutMs: true,
  readOnly: true,
});

/**
 * Keeps toolindex's tool embedding vectors (see `createHybridSearcher`'s `cache`) in the
 * `embedding_vectors` table of a SQLite file, by the fingerprint of the embedded text, as
 * 32-bit floats: a restart, or another process on the same file, embeds nothing twice.
 *
 * @throws {ToolError} `store_error` when the file cannot be opened; its methods reject with
 * `store_error` when SQLite fails.
 */
export function createSqliteVectorCache(options: SqliteVectorCacheOptions = {}): SqliteVectorCache {
  checkSqliteOptions(options, KNOWN, 'createSqliteVectorCache');
  const file = openSearchDb(options, SCHEMA, 'vector cache');
  const { db } = file;
  const get = db.prepare<[string], { vector: Buffer }>(
    'SELECT vector FROM embedding_vectors WHERE fingerprint = ?',
  );
  const put = db.prepare<[string, Buffer]>(
    'INSERT OR REPLACE INTO embedding_vectors (fingerprint, vector) VALUES (?, ?)',
  );
  const putAll = db.transaction(
    (entries: readonly { fingerprint: string; vector: ArrayLike<number> }[]) => {
      for (const { fingerprint, vector } of entries) {
        put.run(fingerprint, Buffer.from(Float32Array.from(vector).buffer));
      }
    },
  );
  return {
    readOnly: file.readOnly,
    get: (fingerprints) =>
      settle('read embedding vectors', () => {
        const found = new Map<string, Float32Array>();
        for (const fingerprint of fingerprints) {
          const row = get.get(fingerprint);
          if (row === undefined) continue;
          // Copied out: the row's buffer may not be aligned for a Float32Array view.
          const bytes = Uint8Array.from(row.vector);
          found.set(fingerprint, new Float32Array(bytes.buffer));
        }
        return found;
      }),
    put: (entries) =>
      settle('write embedding vectors', () => {
        file.writable();
        putAll(entries);
      }),
    close: () => {
      db.close();
    },
  };
}
