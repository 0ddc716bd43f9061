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
import { ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, type Notification, type PoolClient } from 'pg';
import { migrate } from './migrations.js';
import { checkConnection, ownPool } from './connection-options.js';
import type { PostgresConnection } from './postgres-store.js';
import { asStoreError } from './store-error.js';

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

const RECONNECT_MS = 500;

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
  const schema = checkConnection(options, 'createPostgresPinStore');
  const secrets = options.connectionString === undefined ? [] : [options.connectionString];
  const { pool } = ownPool(options);
  const s = escapeIdentifier(schema);
  const channel = `${schema}_pins`;
  const instance = randomUUID();
  const listeners = new Set<(event: PinEvent) => void>();
  let closed = false;
  let listener: PoolClient | undefined;
  let timer: NodeJS.Timeout | undefined;

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
    const db = await pool.connect().catch((error: unknown) => {
      throw fail(error, what);
    });
    let failure: unknown;
    try {
      await db.query('BEGIN');
      const { value, touched } = await work(db);
      for (const event of touched) {
        const payload = JSON.stringify({ w: instance, n: event.namespace, t: event.tool });
        await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
      }
      await db.query('COMMIT');
      emit(touched);
      return value;
    } catch (error) {
      failure = error;
      await db.query('ROLLBACK').catch(() => undefined);
      throw fail(error, what);
    } finally {
      db.release(failure instanceof Error ? failure : undefined);
    }
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

  const onNotification = (message: Notification): void => {
    if (message.channel !== channel || message.payload === undefined) return;
    try {
      const { w, n, t } = JSON.parse(message.payload) as { w?: unknown; n?: unknown; t?: unknown };
      if (w !== instance && typeof n === 'string' && typeof t === 'string') {
        emit([{ namespace: n, tool: t }]);
      }
    } catch {
      // Not ours: something else shares the channel.
    }
  };
  // Ends the listening connection `db` (when it still is the one) and, unless closed, says why
  // and listens again.
  const drop = (db: PoolClient, error: unknown, what: string): void => {
    if (listener !== db) return;
    listener = undefined;
    db.removeListener('notification', onNotification);
    db.release(true);
    if (closed) return;
    options.onError?.(
      asStoreError(error ?? new Error('the connection ended'), what, {
        secrets,
        hint: 'reconnecting',
      }),
    );
    reconnect();
  };
  const listen = async (): Promise<PoolClient> => {
    const db = await pool.connect();
    const lost = (error?: unknown): void => {
      drop(db, error, 'the pin listener lost its connection');
    };
    db.on('error', lost);
    db.on('end', lost);
    db.on('notification', onNotification);
    listener = db;
    try {
      await db.query(`LISTEN ${escapeIdentifier(channel)}`);
    } catch (error) {
      // Not listening: the connection goes, never back to the pool (unless `drop` saw it go).
      if (listener === db) {
        listener = undefined;
        db.removeListener('notification', onNotification);
        db.release(true);
      }
      throw error;
    }
    return db;
  };
  // Back, it reports every tool, as writes made while it was away were not heard. A re-read that
  // fails drops the connection again, so the next reconnect re-reads: no write goes unheard, and
  // no failure escapes as an unhandled rejection (which would end a gateway process).
  const reconnect = (): void => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void resume();
    }, RECONNECT_MS);
  };
  const resume = async (): Promise<void> => {
    let db: PoolClient;
    try {
      db = await listen();
    } catch {
      reconnect();
      return;
    }
    if (closed) {
      drop(db, undefined, 'the pin store was closed');
      return;
    }
    try {
      const rows = await query<{ namespace: string; tool: string }>(
        're-read tool pins',
        `SELECT namespace, tool FROM ${s}.tool_pins`,
      );
      // After a close its watchers are gone: emitting reaches no one.
      emit(rows);
    } catch (error) {
      drop(db, error, 'the pin listener could not re-read the pins it missed');
    }
  };

  try {
    await migrate(pool, schema);
    if (options.listen !== false) await listen();
  } catch (error) {
    // Closed before anything could reconnect: a failed start leaves no timer behind.
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
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
      if (timer !== undefined) clearTimeout(timer);
      const db = listener;
      listener = undefined;
      if (db !== undefined) {
        db.removeListener('notification', onNotification);
        db.release(true);
      }
      if (options.pool === undefined) await pool.end().catch(() => undefined);
    },
  };
}
