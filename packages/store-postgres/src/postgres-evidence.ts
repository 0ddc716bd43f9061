import { randomUUID } from 'node:crypto';
import { addEvidence, type EvidenceForget, type EvidenceStore } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { listenOnChannel, type ChannelListener } from './channel-listener.js';
import { openSearchTable, type SearchTableOptions } from './search-table.js';
import { asStoreError } from './store-error.js';

/** Options for {@link createPostgresEvidenceStore}: a connection and the schema (default `toolplane`). */
export type PostgresEvidenceStoreOptions = SearchTableOptions & {
  /**
   * Told with a `store_error` when the connection listening for other instances' forgets is
   * lost or cannot listen; it reconnects, and catches up on what it missed.
   */
  readonly onError?: (error: ToolError) => void;
};

/** An {@link EvidenceStore} in PostgreSQL, with {@link PostgresEvidenceStore.close}. */
export interface PostgresEvidenceStore extends EvidenceStore {
  add: NonNullable<EvidenceStore['add']>;
  onForget: NonNullable<EvidenceStore['onForget']>;
  /** Stops listening and ends the pool it created (a pool you passed stays open). */
  close(): Promise<void>;
}

const ALL = '*';
const TOOL = 'tool:';

/**
 * Keeps toolindex's learned search evidence (see `createLearningSearcher`) in the
 * `search_evidence` table of a PostgreSQL schema, created when missing (evidence is a cache of
 * use, kept out of the store's versioned migrations): every gateway instance of a fleet learns
 * from the others' sessions. A row is replaced only by a newer one; `add` sums, so instances
 * learning at once all count.
 *
 * A forget leaves a mark in `search_evidence_forgets` (with a rising sequence number) and
 * NOTIFYs `<schema>_evidence` in its transaction. From its first `onForget` listener on, the
 * store holds a connection that LISTENs there, so a forget made by any instance reaches every
 * instance's listeners as it commits; after a lost connection it reconnects and tells the
 * forgets it missed. A store nobody listens to (a one-shot command) holds no such connection.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or not exactly one of
 * `connectionString` and `pool`; `store_error` when the server cannot be reached. Its methods
 * reject with `store_error` when a query fails, `invalid_argument` for a bad `halfLifeMs`, and
 * `cancelled` when a load's signal is aborted.
 */
export async function createPostgresEvidenceStore(
  options: PostgresEvidenceStoreOptions,
): Promise<PostgresEvidenceStore> {
  const opened = await openSearchTable(options, {
    name: 'search_evidence',
    noun: 'search evidence',
    columns: `tool_id TEXT NOT NULL, term TEXT NOT NULL, weight DOUBLE PRECISION NOT NULL,
      updated_at BIGINT NOT NULL, PRIMARY KEY (tool_id, term)`,
    opener: 'createPostgresEvidenceStore',
    beside: [
      {
        name: 'search_evidence_forgets',
        columns: 'scope TEXT PRIMARY KEY, seq BIGINT NOT NULL, writer TEXT NOT NULL',
      },
    ],
  });
  const { table, query, pool, schema, secrets } = opened;
  const marks = table.replace(/search_evidence$/, 'search_evidence_forgets');
  const channel = `${schema}_evidence`;
  const instance = randomUUID();
  const listeners = new Set<(forget: EvidenceForget) => void>();
  let listening: ChannelListener | undefined;
  let closed = false;
  const tell = (forget: EvidenceForget): void => {
    for (const listener of [...listeners]) listener(forget);
  };
  const lastMark = async (): Promise<number> => {
    const [row] = await query<{ seq: string }>(
      'read the forgets of',
      `SELECT coalesce(max(seq), 0) AS seq FROM ${marks}`,
    );
    return Number(row?.seq ?? 0);
  };
  // Forgets up to here are in what a load reads from now on.
  let seen = await lastMark().catch(async (error: unknown) => {
    await opened.close();
    throw error;
  });
  const catchUp = async (): Promise<void> => {
    const rows = await query<{ scope: string; seq: string; writer: string }>(
      'read the forgets of',
      `SELECT scope, seq, writer FROM ${marks} WHERE seq > $1 ORDER BY seq`,
      [seen],
    );
    for (const row of rows) {
      seen = Math.max(seen, Number(row.seq));
      // This instance's own forgets were told as they committed.
      if (row.writer === instance || closed) continue;
      tell({ toolId: row.scope === ALL ? undefined : row.scope.slice(TOOL.length) });
    }
  };

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
    async add(rows, { halfLifeMs }) {
      // One row per (tool, term): an upsert may not touch a row twice.
      const merged = new Map<string, ReturnType<typeof addEvidence>>();
      for (const row of rows) {
        const key = `${row.toolId}\u0000${row.term}`;
        merged.set(key, addEvidence(merged.get(key), row, halfLifeMs));
      }
      if (merged.size === 0) return;
      const added = [...merged.values()];
      // The same sum as addEvidence's, in one statement, so instances adding at once all count.
      await query(
        'add',
        `INSERT INTO ${table} AS kept (tool_id, term, weight, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[])
         ON CONFLICT (tool_id, term) DO UPDATE SET
           weight = kept.weight * power(0.5, greatest(0, excluded.updated_at - kept.updated_at) / $5::float8)
             + excluded.weight * power(0.5, greatest(0, kept.updated_at - excluded.updated_at) / $5::float8),
           updated_at = greatest(kept.updated_at, excluded.updated_at)`,
        [
          added.map((r) => r.toolId),
          added.map((r) => r.term),
          added.map((r) => r.weight),
          added.map((r) => r.updatedAt),
          halfLifeMs,
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
      const db = await pool.connect().catch((error: unknown) => {
        throw asStoreError(error, 'cannot forget search evidence', { secrets });
      });
      let failure: unknown;
      try {
        await db.query('BEGIN');
        // Forgets take turns, so their marks' numbers rise in the order they commit.
        await db.query(`LOCK TABLE ${marks} IN EXCLUSIVE MODE`);
        const next = await db.query<{ seq: string }>(
          `SELECT coalesce(max(seq), 0) + 1 AS seq FROM ${marks}`,
        );
        const seq = Number(next.rows[0]?.seq ?? 1);
        if (toolId === undefined) {
          await db.query(`DELETE FROM ${table}`);
          await db.query(`DELETE FROM ${marks}`);
        } else {
          await db.query(`DELETE FROM ${table} WHERE tool_id = $1`, [toolId]);
        }
        await db.query(
          `INSERT INTO ${marks} (scope, seq, writer) VALUES ($1, $2, $3)
           ON CONFLICT (scope) DO UPDATE SET seq = excluded.seq, writer = excluded.writer`,
          [toolId === undefined ? ALL : `${TOOL}${toolId}`, seq, instance],
        );
        await db.query('SELECT pg_notify($1, $2)', [channel, String(seq)]);
        await db.query('COMMIT');
      } catch (error) {
        failure = error;
        await db.query('ROLLBACK').catch(() => undefined);
        throw asStoreError(error, 'cannot forget search evidence', { secrets });
      } finally {
        db.release(failure instanceof Error ? failure : undefined);
      }
      tell({ toolId });
    },
    onForget(listener) {
      listeners.add(listener);
      if (listening === undefined && !closed) {
        listening = listenOnChannel({
          pool,
          channel,
          secrets,
          who: 'the search evidence forget listener',
          catchUp,
          onError: options.onError,
        });
      }
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      listening?.close();
      listening = undefined;
      await opened.close();
    },
  };
}
