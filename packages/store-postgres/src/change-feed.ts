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

  /** The changes table's rows past `from`, in revision order: each key's latest change. */
  const changesSince = async (db: PoolClient, from: number): Promise<ChangeRecord[]> => {
    const result = await db.query<Omit<ChangeRecord, 'revision'> & { revision: string }>(
      `SELECT revision, writer, kind, op, key, name FROM ${s}.changes
        WHERE revision > $1 ORDER BY revision`,
      [from],
    );
    return result.rows.map((row) => ({ ...row, revision: Number(row.revision) }));
  };

  const catchUp = async (db: PoolClient): Promise<void> => {
    if (revision === undefined) {
      // Read after LISTEN, so every change committed from here on is either counted or notified.
      const result = await db.query<{ revision: string }>(`SELECT revision FROM ${s}.state`);
      revision = Number(result.rows[0]?.revision ?? 0);
      return;
    }
    for (const row of await changesSince(db, revision)) apply(row);
  };

  /**
   * Applies a full notice of the very next revision as the changes table records it. Any role
   * that may connect may NOTIFY on the channel, and only the store's writers may write the table:
   * a made-up notice taken at its word would announce a change no writer made, and take the
   * revision of the real one, which would then be skipped. The table keeps each key's latest
   * change, so the notice's revision is found there unless its key has changed again since; then
   * the notice is the only record of that change left, and it is applied as it says.
   * Otherwise nothing was committed at that revision (yet): the notice is ignored, and the real
   * change of that revision comes with its own notice.
   */
  const verify = async (notice: ChangeRecord, db: PoolClient): Promise<void> => {
    const from = notice.revision - 1;
    const rows = await changesSince(db, from);
    const recorded = rows.find((row) => row.revision === notice.revision);
    if (recorded !== undefined) {
      apply(recorded);
      return;
    }
    const sameKey = rows.find((row) => row.kind === notice.kind && row.key === notice.key);
    if (sameKey !== undefined) apply(notice);
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
    // A full notice of the very next revision is checked against the changes table and
    // applied (see `verify`); any other (a payload cut for NOTIFY's limit, a gap a delete of a
    // missing key leaves, a made-up notice far ahead) has the feed read the table from the last
    // revision it saw, so a notice can never move the feed past a change it has not read.
    onNotification: async (payload, db) => {
      const notice = parseNotice(payload);
      if (notice === undefined || revision === undefined || notice.revision <= revision) return;
      if (notice.writer !== undefined && notice.revision === revision + 1) await verify(notice, db);
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
