import type { EvidenceStore } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { openSearchTable, type SearchTableOptions } from './search-table.js';

/** Options for {@link createPostgresEvidenceStore}: a connection and the schema (default `toolplane`). */
export type PostgresEvidenceStoreOptions = SearchTableOptions;

/** An {@link EvidenceStore} in PostgreSQL, with {@link PostgresEvidenceStore.close}. */
export interface PostgresEvidenceStore extends EvidenceStore {
  /** Ends the pool it created (a pool you passed stays open). */
  close(): Promise<void>;
}

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
  const { table, query, close } = await openSearchTable(options, {
    name: 'search_evidence',
    noun: 'search evidence',
    columns: `tool_id TEXT NOT NULL, term TEXT NOT NULL, weight DOUBLE PRECISION NOT NULL,
      updated_at BIGINT NOT NULL, PRIMARY KEY (tool_id, term)`,
    opener: 'createPostgresEvidenceStore',
  });
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
    close,
  };
}
