import type { VectorCache } from '@toolplane/toolindex';
import { optionKeys } from '@toolplane/toolmodel';
import { openSearchTable, type SearchTableOptions } from './search-table.js';

/** Options for {@link createPostgresVectorCache}: a connection and the schema (default `toolplane`). */
export type PostgresVectorCacheOptions = SearchTableOptions;

/** A {@link VectorCache} in PostgreSQL, with {@link PostgresVectorCache.close}. */
export interface PostgresVectorCache extends VectorCache {
  /** Ends the pool it created (a pool you passed stays open). */
  close(): Promise<void>;
}

const KNOWN = optionKeys<PostgresVectorCacheOptions>({
  connectionString: true,
  pool: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  schema: true,
});

/**
 * Keeps toolindex's tool embedding vectors (see `createHybridSearcher`'s `cache`) in the
 * `embedding_vectors` table of a PostgreSQL schema, created when missing (a cache, kept out of
 * the store's versioned migrations), as 32-bit floats by the fingerprint of the embedded text:
 * a restart, or any instance of a fleet, embeds nothing twice.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or not exactly one of
 * `connectionString` and `pool`; `store_error` when the server cannot be reached. Its methods
 * reject with `store_error` when a query fails.
 */
export async function createPostgresVectorCache(
  options: PostgresVectorCacheOptions,
): Promise<PostgresVectorCache> {
  const { table, query, close } = await openSearchTable(options, {
    name: 'embedding_vectors',
    noun: 'embedding vectors',
    columns: 'fingerprint TEXT PRIMARY KEY, vector BYTEA NOT NULL',
    opener: 'createPostgresVectorCache',
    known: KNOWN,
  });
  return {
    async get(fingerprints) {
      const found = new Map<string, Float32Array>();
      if (fingerprints.length === 0) return found;
      const rows = await query<{ fingerprint: string; vector: Buffer }>(
        'read',
        `SELECT fingerprint, vector FROM ${table} WHERE fingerprint = ANY($1::text[])`,
        [fingerprints],
      );
      for (const row of rows) {
        // Copied out: the row's buffer may not be aligned for a Float32Array view.
        found.set(row.fingerprint, new Float32Array(Uint8Array.from(row.vector).buffer));
      }
      return found;
    },
    async put(entries) {
      if (entries.length === 0) return;
      await query(
        'write',
        `INSERT INTO ${table} (fingerprint, vector)
         SELECT * FROM unnest($1::text[], $2::bytea[])
         ON CONFLICT (fingerprint) DO UPDATE SET vector = excluded.vector`,
        [
          entries.map((e) => e.fingerprint),
          entries.map((e) => Buffer.from(Float32Array.from(e.vector).buffer)),
        ],
      );
    },
    close,
  };
}
