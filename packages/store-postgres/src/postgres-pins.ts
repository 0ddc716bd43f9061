import { randomUUID } from 'node:crypto';
import {
  acceptedRecord,
  auditFromRow,
  auditLimit,
  changeFromRow,
  checkAcceptedFingerprint,
  checkAcceptTarget,
  checkAuditRecord,
  pinFromRow,
  type AuditRecord,
  type AuditRow,
  type Pin,
  type PinChangeRow,
  type PinEvent,
  type PinRow,
  type PinStore,
  type StoreCallOptions,
} from '@toolplane/toolkit';
import { optionKeys, ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, type PoolClient } from 'pg';
import { listenOnChannel, type ChannelListener } from './channel-listener.js';
import { migrate } from './migrations.js';
import { checkConnection, ownPool } from './connection-options.js';
import type { PostgresConnection } from './postgres-store.js';
import { asStoreError } from './store-error.js';
import { inTransaction } from './transaction.js';

/** Options for {@link createPostgresPinStore}. */
export type PostgresPinStoreOptions = PostgresConnection & {
  /** The schema, which may be shared with the other stores'. Default `toolplane`. */
  readonly schema?: string;
  /**
   * Whether to hold a connection that LISTENs for other instances' writes (what a gateway
   * needs to hear an acceptance); a one-shot command sets `false`. Default true.
   */
  readonly listen?: boolean;
  /** Called with a `store_error` when the listening connection drops; it reconnects. */
  readonly onError?: (error: ToolError) => void;
};

const KNOWN = optionKeys<PostgresPinStoreOptions>({
  connectionString: true,
  pool: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  schema: true,
  listen: true,
  onError: true,
});

/**
 * Keeps tool pins, pending changes and the audit log (see `PinStore` in @toolplane/toolkit) in
 * a PostgreSQL schema (the `tool_pins`, `tool_pin_changes` and `audit_log` tables of the
 * store's migrations), so a fleet of gateways shares pins. Every write is one transaction that
 * also NOTIFYs `<schema>_pins`; each store LISTENs there, so an acceptance made anywhere reaches
 * every running gateway as soon as it commits.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or not exactly one of
 * `connectionString` and `pool`; `store_error` when the server cannot be reached. Its methods
 * reject with `store_error` when a query fails, `invalid_argument` for a bad audit record or
 * limit, and `cancelled` when a call's signal is aborted.
 */
export async function createPostgresPinStore(options: PostgresPinStoreOptions): Promise<PinStore> {
  const schema = checkConnection(options, 'createPostgresPinStore', KNOWN);
  const secrets = options.connectionString === undefined ? [] : [options.connectionString];
  const { pool } = ownPool(options);
  const s = escapeIdentifier(schema);
  const channel = `${schema}_pins`;
  const instance = randomUUID();
  const listeners = new Set<(event: PinEvent) => void>();
  let closed = false;

  const emit = (events: readonly PinEvent[]): void => {
    for (const event of events) for (const each of [...listeners]) each(event);
  };
  const fail = (error: unknown, what: string): ToolError =>
    asStoreError(error, `cannot ${what}`, { secrets });
  const check = (callOptions: StoreCallOptions | undefined): void => {
    if (closed) throw new ToolError('store_error', 'the PostgreSQL pin store is closed');
    if (callOptions?.signal?.aborted === true) {
      throw new ToolError('cancelled', 'the operation was cancelled', {
        cause: callOptions.signal.reason,
      });
    }
  };
  const query = async <R extends object>(what: string, text: string, values: unknown[] = []) => {
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (error) {
      throw fail(error, what);
    }
  };
  /** Runs `work` in one transaction, then NOTIFYs the tools it names (in the same commit). */
  const transaction = async <T>(
    what: string,
    work: (db: PoolClient) => Promise<{ value: T; touched: readonly PinEvent[] }>,
  ): Promise<T> => {
    const { value, touched } = await inTransaction(pool, async (db) => {
      const done = await work(db);
      for (const event of done.touched) {
        const payload = JSON.stringify({ w: instance, n: event.namespace, t: event.tool });
        await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
      }
      return done;
    }).catch((error: unknown) => {
      throw fail(error, what);
    });
    emit(touched);
    return value;
  };
  const audit = (db: PoolClient, record: AuditRecord, detail: string | null) =>
    db.query(
      `INSERT INTO ${s}.audit_log (kind, at, tool_id, who, fingerprint, previous, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7::json)`,
      [
        record.kind,
        record.at,
        record.toolId,
        record.who ?? null,
        record.fingerprint ?? null,
        record.previous ?? null,
        detail,
      ],
    );

  // Each notification names the tool it touched. Back after a lost connection, the listener
  // reports every tool, as writes made while it was away were not heard; a re-read that fails
  // drops the connection again, so the next reconnect re-reads: no write goes unheard.
  const onNotification = (payload: string | undefined): void => {
    if (payload === undefined) return;
    try {
      const { w, n, t } = JSON.parse(payload) as { w?: unknown; n?: unknown; t?: unknown };
      if (w !== instance && typeof n === 'string' && typeof t === 'string') {
        emit([{ namespace: n, tool: t }]);
      }
    } catch {
      // Not ours: something else shares the channel.
    }
  };
  const reRead = async (): Promise<void> => {
    const rows = await query<{ namespace: string; tool: string }>(
      're-read tool pins',
      `SELECT namespace, tool FROM ${s}.tool_pins`,
    );
    // After a close its watchers are gone: emitting reaches no one.
    emit(rows);
  };

  let listening: ChannelListener | undefined;
  try {
    await migrate(pool, schema);
    if (options.listen !== false) {
      listening = listenOnChannel({
        pool,
        channel,
        secrets,
        who: 'the pin listener',
        catchUp: reRead,
        onNotification,
        catchUpAtStart: false,
        // A failed start rejects here and leaves no timer and no connection behind.
        retryAtStart: false,
        onError: options.onError,
      });
      await listening.ready;
    }
  } catch (error) {
    closed = true;
    await listening?.close();
    if (options.pool === undefined) await pool.end().catch(() => undefined);
    throw fail(error, 'open the PostgreSQL pin store');
  }

  return {
    async listPins(namespace, callOptions) {
      check(callOptions);
      const rows = await query<PinRow>(
        'list tool pins',
        `SELECT namespace, tool, fingerprint, definition, pinned_at FROM ${s}.tool_pins
          WHERE $1::text IS NULL OR namespace = $1 ORDER BY namespace, tool`,
        [namespace ?? null],
      );
      return rows.map(pinFromRow);
    },
    async pinFirst(pin, record, callOptions) {
      check(callOptions);
      const detail = checkAuditRecord(record);
      return transaction('pin a tool', async (db) => {
        const inserted = await db.query(
          `INSERT INTO ${s}.tool_pins (namespace, tool, fingerprint, definition, pinned_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (namespace, tool) DO NOTHING`,
          [pin.namespace, pin.tool, pin.fingerprint, pin.definition, pin.pinnedAt],
        );
        if (inserted.rowCount === 0) {
          const existing = await db.query<{
            fingerprint: string;
            definition: string;
            pinned_at: string;
          }>(
            `SELECT fingerprint, definition, pinned_at FROM ${s}.tool_pins
              WHERE namespace = $1 AND tool = $2`,
            [pin.namespace, pin.tool],
          );
          const row = existing.rows[0];
          const value: Pin =
            row === undefined
              ? pin
              : {
                  ...pin,
                  fingerprint: row.fingerprint,
                  definition: row.definition,
                  pinnedAt: Number(row.pinned_at),
                };
          return { value, touched: [] };
        }
        await audit(db, record, detail);
        return { value: pin, touched: [pin] };
      });
    },
    async recordChange(change, record, callOptions) {
      check(callOptions);
      const detail = checkAuditRecord(record);
      return transaction('record a tool change', async (db) => {
        const written = await db.query(
          `INSERT INTO ${s}.tool_pin_changes (namespace, tool, pinned_fingerprint,
             pinned_definition, fingerprint, definition, seen_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (namespace, tool) DO UPDATE SET pinned_fingerprint = excluded.pinned_fingerprint,
             pinned_definition = excluded.pinned_definition, fingerprint = excluded.fingerprint,
             definition = excluded.definition, seen_at = excluded.seen_at
           WHERE ${s}.tool_pin_changes.fingerprint <> excluded.fingerprint`,
          [
            change.namespace,
            change.tool,
            change.pinned.fingerprint,
            change.pinned.definition,
            change.current.fingerprint,
            change.current.definition,
            change.seenAt,
          ],
        );
        if (written.rowCount === 0) return { value: false, touched: [] };
        await audit(db, record, detail);
        return { value: true, touched: [change] };
      });
    },
    async clearChange(change, record, callOptions) {
      check(callOptions);
      const detail = checkAuditRecord(record);
      return transaction('drop a reverted tool change', async (db) => {
        const cleared = await db.query(
          `DELETE FROM ${s}.tool_pin_changes WHERE namespace = $1 AND tool = $2
             AND pinned_fingerprint = $3 AND fingerprint = $4`,
          [change.namespace, change.tool, change.pinned.fingerprint, change.current.fingerprint],
        );
        if (cleared.rowCount === 0) return { value: false, touched: [] };
        await audit(db, record, detail);
        return { value: true, touched: [change] };
      });
    },
    async listChanges(namespace, callOptions) {
      check(callOptions);
      const rows = await query<PinChangeRow>(
        'list tool changes',
        `SELECT * FROM ${s}.tool_pin_changes WHERE $1::text IS NULL OR namespace = $1
          ORDER BY namespace, tool`,
        [namespace ?? null],
      );
      return rows.map(changeFromRow);
    },
    async accept(target, who, callOptions) {
      check(callOptions);
      checkAcceptTarget(target);
      return transaction('accept tool changes', async (db) => {
        // Taken and removed at once: two people accepting together accept each change once.
        const taken = await db.query<PinChangeRow>(
          `DELETE FROM ${s}.tool_pin_changes WHERE namespace = $1 AND ($2::text IS NULL OR tool = $2)
           RETURNING *`,
          [target.namespace, target.tool ?? null],
        );
        const accepted = taken.rows.map(changeFromRow).sort((a, b) => (a.tool < b.tool ? -1 : 1));
        // Refused after the DELETE, inside the transaction: its rollback restores the change.
        checkAcceptedFingerprint(target, accepted);
        const now = Date.now();
        for (const change of accepted) {
          await db.query(
            `INSERT INTO ${s}.tool_pins (namespace, tool, fingerprint, definition, pinned_at)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (namespace, tool) DO UPDATE SET
               fingerprint = excluded.fingerprint, definition = excluded.definition,
               pinned_at = excluded.pinned_at`,
            [
              change.namespace,
              change.tool,
              change.current.fingerprint,
              change.current.definition,
              now,
            ],
          );
          await audit(db, acceptedRecord(change, who, now), null);
        }
        return { value: accepted, touched: accepted };
      });
    },
    async appendAudit(record, callOptions) {
      check(callOptions);
      const detail = checkAuditRecord(record);
      await transaction('append an audit record', async (db) => {
        await audit(db, record, detail);
        return { value: undefined, touched: [] };
      });
    },
    async listAudit(listOptions = {}) {
      check(listOptions);
      const limit = auditLimit(listOptions.limit);
      const rows = await query<AuditRow>(
        'list audit records',
        `SELECT * FROM (SELECT * FROM ${s}.audit_log WHERE at >= $1 ORDER BY seq DESC LIMIT $2) r
          ORDER BY seq`,
        [listOptions.since ?? 0, limit],
      );
      return rows.map(auditFromRow);
    },
    watch(each) {
      listeners.add(each);
      return () => {
        listeners.delete(each);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      await listening?.close();
      if (options.pool === undefined) await pool.end().catch(() => undefined);
    },
  };
}
