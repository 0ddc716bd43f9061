import type { StoreChange } from '@toolplane/toolkit';
import { ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, escapeLiteral, type Notification, type Pool } from 'pg';
import { takeListeningConnection, type ListeningConnection } from './channel-listener.js';
import { asStoreError } from './store-error.js';

/** What {@link startChangeFeed} needs. @internal */
export interface ChangeFeedOptions {
  readonly pool: Pool;
  /** Unquoted schema name. */
  readonly schema: string;
  readonly channel: string;
  /** This store instance's id: its own changes are skipped, as the store emits them itself. */
  readonly instanceId: string;
  readonly emit: (change: StoreChange) => void;
  readonly onError: (error: ToolError) => void;
  /** Masked in error messages. */
  readonly secrets: readonly string[];
  readonly signal?: AbortSignal | undefined;
}

/** A running change feed; see {@link startChangeFeed}. @internal */
export interface ChangeFeed {
  /** Stops listening and ends the connection. Idempotent. */
  close(): Promise<void>;
}

/** A change as a writer's NOTIFY or the catch-up query reports it. */
interface ChangeRecord {
  readonly revision: number;
  readonly writer: string;
  readonly kind: 'prompt' | 'resource';
  readonly op: 'put' | 'delete';
  readonly key: string;
  readonly name: string;
}

/** A parsed notification: a full record, or just a revision when the payload had to be cut. */
type Notice = ChangeRecord | { readonly revision: number; readonly writer?: undefined };

const RECONNECT_BASE_MS = 100;
const RECONNECT_CAP_MS = 5_000;

/**
 * Holds one pool connection that LISTENs on `channel` and turns other instances' notifications
 * into {@link StoreChange}s, in commit order. When the connection drops it reports the error,
 * reconnects with full-jitter backoff, and catches up from the `changes` table: every key changed
 * since the last revision it saw is emitted once, with its latest op.
 *
 * @throws {ToolError} `store_error` when the first connection fails; `cancelled`.
 * @internal
 */
export async function startChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  const { pool, instanceId, emit, onError, secrets } = options;
  const s = escapeIdentifier(options.schema);
  const listenSql =
    `SET application_name = ${escapeLiteral(`toolplane:listen:${instanceId}`)}; ` +
    `LISTEN ${escapeIdentifier(options.channel)}`;

  let client: ListeningConnection | undefined;
  let revision = 0;
  let closed = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;
  // Notices and catch-ups are handled one at a time, in arrival order.
  const queue: (Notice | 'catch-up')[] = [];
  let pumping = false;

  const apply = (record: ChangeRecord): void => {
    revision = record.revision;
    if (record.writer !== instanceId) emit(toStoreChange(record));
  };

  const catchUp = async (db: ListeningConnection): Promise<void> => {
    const result = await db.client.query<Omit<ChangeRecord, 'revision'> & { revision: string }>(
      `SELECT revision, writer, kind, op, key, name FROM ${s}.changes
        WHERE revision > $1 ORDER BY revision`,
      [revision],
    );
    for (const row of result.rows) apply({ ...row, revision: Number(row.revision) });
  };

  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      for (let item = queue.shift(); item !== undefined && !closed; item = queue.shift()) {
        if (item !== 'catch-up') {
          if (item.revision <= revision) continue;
          if (item.writer !== undefined) {
            apply(item);
            continue;
          }
        }
        const db = client;
        // Without a connection, the reconnect queues its own catch-up.
        if (db === undefined) continue;
        try {
          await catchUp(db);
        } catch (error) {
          drop(db, error);
        }
      }
    } finally {
      pumping = false;
    }
  };

  const onNotification = (message: Notification): void => {
    const notice = parseNotice(message.payload);
    if (notice === undefined) return;
    queue.push(notice);
    void pump();
  };

  const drop = (db: ListeningConnection, error: unknown): void => {
    if (client !== db) return;
    client = undefined;
    db.release(error);
    if (closed) return;
    onError(
      asStoreError(error, 'the PostgreSQL change listener lost its connection', {
        secrets,
        hint: 'reconnecting; the changes made meanwhile are emitted once it is back',
      }),
    );
    scheduleReconnect();
  };

  const connect = async (): Promise<ListeningConnection> => {
    const db = await takeListeningConnection(pool, listenSql, {
      onNotification,
      onLost: (held, error) => {
        drop(held, error ?? new Error('the connection ended'));
      },
    });
    if (closed) {
      db.release();
      throw new ToolError('store_error', 'the PostgreSQL store was closed');
    }
    client = db;
    return db;
  };

  const scheduleReconnect = (): void => {
    const delay = Math.random() * Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** attempt);
    attempt++;
    timer = setTimeout(() => {
      timer = undefined;
      connect().then(
        () => {
          attempt = 0;
          queue.push('catch-up');
          void pump();
        },
        (error: unknown) => {
          if (closed) return;
          onError(
            asStoreError(error, 'cannot reconnect the PostgreSQL change listener', {
              secrets,
              hint: 'retrying with backoff',
            }),
          );
          scheduleReconnect();
        },
      );
    }, delay);
  };

  if (options.signal?.aborted === true) {
    throw new ToolError('cancelled', 'the operation was cancelled', {
      cause: options.signal.reason,
    });
  }
  const first = await connect();
  try {
    // Read after LISTEN, so every change committed from here on is either counted or notified.
    const result = await first.client.query<{ revision: string }>(
      `SELECT revision FROM ${s}.state`,
    );
    revision = Number(result.rows[0]?.revision ?? 0);
  } catch (error) {
    closed = true;
    client = undefined;
    first.release(error);
    throw error;
  }

  return {
    async close() {
      if (closed) return;
      closed = true;
      queue.length = 0;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      const db = client;
      client = undefined;
      if (db === undefined) return;
      const ended = new Promise<void>((resolve) => {
        db.client.once('end', () => {
          resolve();
        });
      });
      db.release();
      await ended;
    },
  };
}

function toStoreChange(record: ChangeRecord): StoreChange {
  return record.kind === 'prompt'
    ? { kind: 'prompt', op: record.op, name: record.key }
    : { kind: 'resource', op: record.op, uri: record.key, name: record.name };
}

/** Reads a writer's payload; anything else sharing the channel is ignored. */
function parseNotice(payload: string | undefined): Notice | undefined {
  if (payload === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const { revision, writer, kind, op, key, name } = record;
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision)) return undefined;
  if (
    typeof writer === 'string' &&
    (kind === 'prompt' || kind === 'resource') &&
    (op === 'put' || op === 'delete') &&
    typeof key === 'string' &&
    typeof name === 'string'
  ) {
    return { revision, writer, kind, op, key, name };
  }
  // Too long for NOTIFY's 8000 bytes: the writer sent only the revision; catch up to read it.
  return { revision };
}
