import type { VectorCache } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, Pool } from 'pg';
import { DEFAULT_POSTGRES_SCHEMA, type PostgresConnection } from './postgres-store.js';
import { asStoreError } from './store-error.js';

/** Options for {@link createPostgresVectorCache}. */
export type PostgresVectorCacheOptions = PostgresConnection & {
  /** The schema, which may be shared with the other stores'. Default `toolplane`. */
  readonly schema?: string;
};

/** A {@link VectorCache} in PostgreSQL, with {@link PostgresVectorCache.close}. */
export interface PostgresVectorCache extends VectorCache {
  /** Ends the pool it created (a pool you passed stays open). */
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

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
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new ToolError(
      'invalid_config',
      `PostgreSQL schema name ${JSON.stringify(schema)} is not allowed`,
    );
  }
  if ((options.connectionString === undefined) === (options.pool === undefined)) {
    throw new ToolError(
      'invalid_config',
      'createPostgresVectorCache needs exactly one of connectionString and pool',
    );
  }
  const secrets = options.connectionString === undefined ? [] : [options.connectionString];
  const pool =
    options.pool ?? new Pool({ connectionString: options.connectionString, keepAlive: true });
  if (options.pool === undefined) pool.on('error', () => undefined);
  const table = `${escapeIdentifier(schema)}.embedding_vectors`;
  const query = async <R extends object>(what: string, text: string, values: unknown[] = []) => {
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (error) {
      throw asStoreError(error, `cannot ${what} embedding vectors`, { secrets });
    }
  };
  try {
    await query(
      'create the table of',
      `CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(schema)};
      CREATE TABLE IF NOT EXISTS ${table} (fingerprint TEXT PRIMARY KEY, vector BYTEA NOT NULL)`,
    );
  } catch (error) {
    if (options.pool === undefined) await pool.end().catch(() => undefined);
    throw error;
  }
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
    async close() {
      if (options.pool === undefined) await pool.end().catch(() => undefined);
    },
  };
}
