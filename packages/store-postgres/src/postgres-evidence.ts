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
import { listenOnChannel, type ChannelListener } from './channel-listener.js';
import { openSearchTable, type SearchTableOptions } from './search-table.js';
import { asStoreError } from './store-error.js';
import { inTransaction } from './transaction.js';

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

interface Row {
  tool_id: string;
  term: string;
  weight: number;
  updated_at: string;
}

/** Takes a tool's turn among the writers of its evidence, until the transaction ends. */
const lockTool = 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))';

const fromRow = (row: Row): UsageEvidence => ({
  toolId: row.tool_id,
  term: row.term,
  weight: row.weight,
  updatedAt: Number(row.updated_at),
});

const keyOf = (row: Pick<UsageEvidence, 'toolId' | 'term'>): string =>
  `${row.toolId}\u0000${row.term}`;

/** `updated_at` is a whole number of milliseconds: a time with a fraction is kept to the nearest. */
const toMillisecond = (updatedAt: number): number => Math.round(updatedAt);

/**
 * `weight` at the later of the two times; a row older than 1,000 half-lives counts 0, since
 * PostgreSQL fails a power that underflows instead of giving 0.
 */
const decayedTo = (row: string, other: string): string =>
  `CASE WHEN greatest(0, ${other}.updated_at - ${row}.updated_at) / $5::float8 > 1000 THEN 0
     ELSE ${row}.weight * power(0.5, greatest(0, ${other}.updated_at - ${row}.updated_at) / $5::float8) END`;

const KNOWN = optionKeys<PostgresEvidenceStoreOptions>({
  connectionString: true,
  pool: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  schema: true,
  onError: true,
});

/**
 * Keeps toolindex's learned search evidence (see `createLearningSearcher`) in the
 * `search_evidence` table of a PostgreSQL schema, created when missing (evidence is a cache of
 * use, kept out of the store's versioned migrations): every gateway instance of a fleet learns
 * from the others' sessions. A row is replaced only by a newer one (times are kept to the
 * millisecond); `add` sums, so instances
 * learning at once all count. With `maxTermsPerTool`, an `add` also keeps each tool it names to
 * its heaviest rows, deleting the rest, in its transaction and in turn with every other
 * instance's bounded add of that tool, so the bound holds on the shared rows.
 *
 * A forget leaves a mark in `search_evidence_forgets` (with a rising sequence number) and
 * NOTIFYs `<schema>_evidence` in its transaction. From its first `onForget` listener on, the
 * store holds a connection that LISTENs there, so a forget made by any instance reaches every
 * instance's listeners as it commits; after a lost connection it reconnects and tells the
 * forgets it missed. A store nobody listens to (a one-shot command) holds no such connection.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or not exactly one of
 * `connectionString` and `pool`; `store_error` when the server cannot be reached. Its methods
 * reject with `store_error` when a query fails, `invalid_argument` for a bad `halfLifeMs` or
 * `maxTermsPerTool`, and
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
    known: KNOWN,
    beside: [
      {
        name: 'search_evidence_forgets',
        columns: 'scope TEXT PRIMARY KEY, seq BIGINT NOT NULL, writer TEXT NOT NULL',
      },
    ],
  });
  const { table, query, pool, schema, secrets } = opened;
  // The same sum as addEvidence's, in one statement, so instances adding at once all count.
  const addSql = `INSERT INTO ${table} AS kept (tool_id, term, weight, updated_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[])
    ON CONFLICT (tool_id, term) DO UPDATE SET
      weight = ${decayedTo('kept', 'excluded')} + ${decayedTo('excluded', 'kept')},
      updated_at = greatest(kept.updated_at, excluded.updated_at)`;
  const marks = table.replace(/search_evidence$/, 'search_evidence_forgets');
  const channel = `${schema}_evidence`;
  const instance = randomUUID();
  const listeners = createForgetListeners();
  let listening: ChannelListener | undefined;
  let closed = false;
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
      listeners.tell({ toolId: row.scope === ALL ? undefined : row.scope.slice(TOOL.length) });
    }
  };

  return {
    async load(loadOptions = {}) {
      if (loadOptions.signal?.aborted === true) {
        throw new ToolError('cancelled', 'loading search evidence was cancelled');
      }
      const rows = await query<Row>(
        'load',
        `SELECT tool_id, term, weight, updated_at FROM ${table}`,
      );
      return rows.map(fromRow);
    },
    async save(saved) {
      checkEvidenceRows(saved);
      // One row per (tool, term), the newest (the later of equals), as the upsert would keep:
      // an upsert may not touch a row twice.
      const newest = new Map<string, UsageEvidence>();
      for (const row of saved) {
        const key = keyOf(row);
        const kept = newest.get(key);
        if (kept === undefined || row.updatedAt >= kept.updatedAt) newest.set(key, row);
      }
      const rows = [...newest.values()];
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
          rows.map((r) => toMillisecond(r.updatedAt)),
        ],
      );
    },
    async add(rows, { halfLifeMs, maxTermsPerTool }) {
      checkEvidenceRows(rows);
      // One row per (tool, term): an upsert may not touch a row twice.
      const merged = new Map<string, ReturnType<typeof addEvidence>>();
      for (const row of rows) {
        const key = keyOf(row);
        merged.set(key, addEvidence(merged.get(key), row, halfLifeMs));
      }
      const added = [...merged.values()];
      const values = [
        added.map((r) => r.toolId),
        added.map((r) => r.term),
        added.map((r) => r.weight),
        added.map((r) => toMillisecond(r.updatedAt)),
        halfLifeMs,
      ];
      if (added.length === 0) return maxTermsPerTool === undefined ? undefined : [];
      if (maxTermsPerTool === undefined) {
        await query('add', addSql, values);
        return undefined;
      }
      const tools = [...new Set(values[0] as string[])].sort();
      return inTransaction(pool, async (db) => {
        // Writers of one tool take turns (each tool's lock taken in one order: no deadlock), so
        // each bounds the rows the others committed, and the bound holds however many write.
        for (const tool of tools) {
          await db.query(lockTool, [table, tool]);
        }
        await db.query(addSql, values);
        const held = await db.query<Row>(
          `SELECT tool_id, term, weight, updated_at FROM ${table} WHERE tool_id = ANY($1::text[])`,
          [tools],
        );
        const byTool = new Map<string, UsageEvidence[]>();
        for (const row of held.rows) {
          const each = byTool.get(row.tool_id) ?? [];
          each.push(fromRow(row));
          byTool.set(row.tool_id, each);
        }
        const kept: UsageEvidence[] = [];
        const evicted: UsageEvidence[] = [];
        for (const each of byTool.values()) {
          const bounded = keepHeaviest(each, maxTermsPerTool, halfLifeMs);
          kept.push(...bounded.kept);
          evicted.push(...bounded.evicted);
        }
        if (evicted.length > 0) {
          await db.query(
            `DELETE FROM ${table} WHERE (tool_id, term) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
            [evicted.map((r) => r.toolId), evicted.map((r) => r.term)],
          );
        }
        return kept;
      }).catch((error: unknown) => {
        throw asStoreError(error, 'cannot add search evidence', { secrets });
      });
    },
    async remove(rows) {
      checkEvidenceKeys(rows);
      if (rows.length === 0) return;
      await query(
        'remove',
        `DELETE FROM ${table} WHERE (tool_id, term) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [rows.map((r) => r.toolId), rows.map((r) => r.term)],
      );
    },
    async forget(toolId) {
      await inTransaction(pool, async (db) => {
        // Forgets take turns, so their marks' numbers rise in the order they commit.
        await db.query(`LOCK TABLE ${marks} IN EXCLUSIVE MODE`);
        const next = await db.query<{ seq: string }>(
          `SELECT coalesce(max(seq), 0) + 1 AS seq FROM ${marks}`,
        );
        const seq = Number(next.rows[0]?.seq ?? 1);
        // Taken in turn with the bounded adds (of this tool by its lock, of every tool by the
        // table's, which each add's write waits for), so no two wait on each other's rows.
        if (toolId === undefined) {
          await db.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`);
          await db.query(`DELETE FROM ${table}`);
          await db.query(`DELETE FROM ${marks}`);
        } else {
          await db.query(lockTool, [table, toolId]);
          await db.query(`DELETE FROM ${table} WHERE tool_id = $1`, [toolId]);
        }
        await db.query(
          `INSERT INTO ${marks} (scope, seq, writer) VALUES ($1, $2, $3)
           ON CONFLICT (scope) DO UPDATE SET seq = excluded.seq, writer = excluded.writer`,
          [toolId === undefined ? ALL : `${TOOL}${toolId}`, seq, instance],
        );
        await db.query('SELECT pg_notify($1, $2)', [channel, String(seq)]);
      }).catch((error: unknown) => {
        throw asStoreError(error, 'cannot forget search evidence', { secrets });
      });
      listeners.tell({ toolId });
    },
    onForget(listener) {
      const off = listeners.add(listener);
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
      return off;
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      const stopping = listening?.close();
      listening = undefined;
      await stopping;
      await opened.close();
    },
  };
}
