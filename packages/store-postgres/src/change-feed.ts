import type { StoreChange } from '@toolplane/toolkit';
import { throwIfAborted, whenAborted, type ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, type Pool, type PoolClient } from 'pg';
import { listenOnChannel } from './channel-listener.js';
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
  /** Aborts starting: listening and reading the revision to start from. */
  readonly signal?: AbortSignal | undefined;
}

/** A running change feed; see {@link startChangeFeed}. @internal */
export interface ChangeFeed {
  /** Stops listening; settles once its connection has ended. Idempotent. */
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

/**
 * Turns other instances' notifications on `channel` into {@link StoreChange}s, in commit order,
 * through a {@link listenOnChannel} listener (whose connection shows in `pg_stat_activity` as
 * `toolplane:listen:<instanceId>`). When the connection drops it reports the error, reconnects
 * with the listener's backoff, and catches up from the `changes` table: every key changed since
 * the last revision it saw is emitted once, with its latest op.
 *
 * @throws {ToolError} `store_error` when it cannot listen or read the current revision the
 * first time (it does not retry then); `cancelled` when `signal` aborts first, whatever it is
 * waiting on.
 * @internal
 */
export async function startChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  const { instanceId, emit, secrets, signal } = options;
  const s = escapeIdentifier(options.schema);
  throwIfAborted(signal);

  // Unknown until the first catch-up reads it.
  let revision: number | undefined;
  let closed = false;

  const apply = (record: ChangeRecord): void => {
    revision = record.revision;
    if (record.writer !== instanceId && !closed) emit(toStoreChange(record));
  };

  const catchUp = async (db: PoolClient): Promise<void> => {
    if (revision === undefined) {
      // Read after LISTEN, so every change committed from here on is either counted or notified.
      const result = await db.query<{ revision: string }>(`SELECT revision FROM ${s}.state`);
      revision = Number(result.rows[0]?.revision ?? 0);
      return;
    }
    const result = await db.query<Omit<ChangeRecord, 'revision'> & { revision: string }>(
      `SELECT revision, writer, kind, op, key, name FROM ${s}.changes
        WHERE revision > $1 ORDER BY revision`,
      [revision],
    );
    for (const row of result.rows) apply({ ...row, revision: Number(row.revision) });
  };

  // The listener hands notices and catch-ups over one at a time, in arrival order: a notice
  // that arrives while a catch-up reads is applied after it, so `revision` never goes back.
  const listener = listenOnChannel({
    pool: options.pool,
    channel: options.channel,
    secrets,
    who: 'the PostgreSQL change listener',
    applicationName: `toolplane:listen:${instanceId}`,
    catchUp,
    // A full notice of the very next revision is applied as it says; any other (a payload cut
    // for NOTIFY's limit, a gap a delete of a missing key leaves) has it read the changes table,
    // which only the store's writers may write. Any role that may connect may NOTIFY on the
    // channel: a made-up notice far ahead, taken at its word, would leave the feed deaf to every
    // real change until it restarts; read from the table, it changes nothing.
    onNotification: async (payload, db) => {
      const notice = parseNotice(payload);
      if (notice === undefined || revision === undefined || notice.revision <= revision) return;
      if (notice.writer !== undefined && notice.revision === revision + 1) apply(notice);
      else await catchUp(db);
    },
    retryAtStart: false,
    onError: options.onError,
  });
  // An abort closes the listener, whatever it is waiting on (a lock on the state table).
  const stopWatching =
    signal === undefined
      ? undefined
      : whenAborted(signal, () => {
          void listener.close();
        });
  try {
    await listener.ready;
    throwIfAborted(signal);
  } catch (error) {
    await listener.close();
    throwIfAborted(signal);
    throw asStoreError(error, 'the PostgreSQL change listener cannot start', { secrets });
  } finally {
    stopWatching?.();
  }

  return {
    async close() {
      closed = true;
      await listener.close();
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
