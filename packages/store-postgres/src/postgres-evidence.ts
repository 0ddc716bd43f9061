import type { EvidenceStore } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, Pool } from 'pg';
import { DEFAULT_POSTGRES_SCHEMA, type PostgresConnection } from './postgres-store.js';
import { asStoreError } from './store-error.js';

/** Options for {@link createPostgresEvidenceStore}. */
export type PostgresEvidenceStoreOptions = PostgresConnection & {
  /** The schema, which may be shared with the other stores'. Default `toolplane`. */
  readonly schema?: string;
};

/** An {@link EvidenceStore} in PostgreSQL, with {@link PostgresEvidenceStore.close}. */
export interface PostgresEvidenceStore extends EvidenceStore {
  /** Ends the pool it created (a pool you passed stays open). */
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/**
 * Keeps toolindex's learned search evidence (see `createLearningSearcher`) in the
 * `search_evidence` table of a PostgreSQL schema, created when missing (evidence is a cache of
 * use, kept out of the store's versioned migrations): every gateway instance of a fleet learns
 * from the others' sessions. A row is replaced only by a newer one.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or not exactly one of
 * `connectionString` and `pool`; `store_error` when the server cannot be reached. Its methods
 * reject with `store_error` when a query fails and `cancelled` when a load's signal is aborted.
 */
export async function createPostgresEvidenceStore(
  options: PostgresEvidenceStoreOptions,
): Promise<PostgresEvidenceStore> {
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
      'createPostgresEvidenceStore needs exactly one of connectionString and pool',
    );
  }
  const secrets = options.connectionString === undefined ? [] : [options.connectionString];
  const pool =
    options.pool ?? new Pool({ connectionString: options.connectionString, keepAlive: true });
  if (options.pool === undefined) pool.on('error', () => undefined);
  const table = `${escapeIdentifier(schema)}.search_evidence`;
  const query = async <R extends object>(what: string, text: string, values: unknown[] = []) => {
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (error) {
      throw asStoreError(error, `cannot ${what} search evidence`, { secrets });
    }
  };
  try {
    await query(
      'create the table of',
      `CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(schema)};
      CREATE TABLE IF NOT EXISTS ${table} (
        tool_id TEXT NOT NULL, term TEXT NOT NULL, weight DOUBLE PRECISION NOT NULL,
        updated_at BIGINT NOT NULL, PRIMARY KEY (tool_id, term))`,
    );
  } catch (error) {
    if (options.pool === undefined) await pool.end().catch(() => undefined);
    throw error;
  }
  return {
    async load(loadOptions = {}) {
      if (loadOptions.signal?.aborted === true) {
        throw new ToolError('cancelled', 'loading search evidence was cancelled');
      }
      const rows = await query<{
        tool_id: string;
        term: string;
        weight: number;
        updated_at: string;
      }>('load', `SELECT tool_id, term, weight, updated_at FROM ${table}`);
      return rows.map((row) => ({
        toolId: row.tool_id,
        term: row.term,
        weight: row.weight,
        updatedAt: Number(row.updated_at),
      }));
    },
    async save(rows) {
      if (rows.length === 0) return;
      await query(
        'save',
        `INSERT INTO ${table} (tool_id, term, weight, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[])
         ON CONFLICT (tool_id, term) DO UPDATE SET weight = excluded.weight,
           updated_at = excluded.updated_at WHERE excluded.updated_at >= ${table}.updated_at`,
        [
          rows.map((r) => r.toolId),
          rows.map((r) => r.term),
          rows.map((r) => r.weight),
          rows.map((r) => r.updatedAt),
        ],
      );
    },
    async remove(rows) {
      if (rows.length === 0) return;
      await query(
        'remove',
        `DELETE FROM ${table} WHERE (tool_id, term) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [rows.map((r) => r.toolId), rows.map((r) => r.term)],
      );
    },
    async forget(toolId) {
      if (toolId === undefined) await query('forget', `DELETE FROM ${table}`);
      else await query('forget', `DELETE FROM ${table} WHERE tool_id = $1`, [toolId]);
    },
    async close() {
      if (options.pool === undefined) await pool.end().catch(() => undefined);
    },
  };
}
