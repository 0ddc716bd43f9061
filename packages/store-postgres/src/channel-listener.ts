import { ToolError } from '@toolplane/toolmodel';
import { escapeIdentifier, type Notification, type Pool, type PoolClient } from 'pg';
import { asStoreError } from './store-error.js';

const RECONNECT_MS = 500;

/** A pool connection that LISTENs, taken by {@link takeListeningConnection}. @internal */
export interface ListeningConnection {
  readonly client: PoolClient;
  /** Destroys the connection: a LISTENing connection never goes back to the pool. */
  release(error?: unknown): void;
}

/**
 * Takes a pool connection and runs `listenSql` (its LISTEN) on it. `onNotification` and
 * `onLost` are attached before the first query, since an 'error' event with no listener would
 * end the process; `onLost` is told when the connection errs or ends, from then on. When the
 * LISTEN fails, the connection is destroyed and the failure thrown.
 *
 * @internal
 */
export async function takeListeningConnection(
  pool: Pool,
  listenSql: string,
  handlers: {
    readonly onNotification: (message: Notification) => void;
    readonly onLost: (held: ListeningConnection, error?: unknown) => void;
  },
): Promise<ListeningConnection> {
  const db = await pool.connect();
  const held: ListeningConnection = {
    client: db,
    release(error) {
      db.removeListener('notification', handlers.onNotification);
      db.release(error instanceof Error ? error : true);
    },
  };
  const lost = (error?: unknown): void => {
    handlers.onLost(held, error);
  };
  db.on('error', lost);
  db.on('end', lost);
  db.on('notification', handlers.onNotification);
  try {
    await db.query(listenSql);
  } catch (error) {
    held.release(error);
    throw error;
  }
  return held;
}

/** What {@link listenOnChannel} needs. @internal */
export interface ChannelListenerOptions {
  readonly pool: Pool;
  readonly channel: string;
  /** Masked in error messages. */
  readonly secrets: readonly string[];
  /** Who listens, for the errors it reports (`the evidence forget listener`). */
  readonly who: string;
  /**
   * Reads what other instances changed: called once listening (at first, and after every
   * reconnect, for what was missed meanwhile) and on each notification, one call at a time. A
   * rejection drops the connection, which reconnects and calls it again, so nothing goes unread.
   */
  readonly catchUp: () => Promise<void>;
  /**
   * For a channel whose payloads say what changed: told each notification's payload in place of
   * a catch-up, which then runs only once listening. Default: each notification asks for a
   * catch-up.
   */
  readonly onNotification?: ((payload: string | undefined) => void) | undefined;
  /**
   * Whether the first time it listens also catches up; `false` for a caller that has missed
   * nothing yet (it catches up after each reconnect all the same). Default true.
   */
  readonly catchUpAtStart?: boolean | undefined;
  /** Told with a `store_error` when the listening connection is lost; it reconnects. */
  readonly onError?: ((error: ToolError) => void) | undefined;
}

/** A listener started by {@link listenOnChannel}. @internal */
export interface ChannelListener {
  /**
   * Settles once it first listens; rejects with the first failure to (it goes on retrying
   * until closed). A caller that must listen before it starts awaits it.
   */
  readonly ready: Promise<void>;
  /** Stops listening and ends the connection. Idempotent. */
  close(): void;
}

/**
 * Holds one pool connection that LISTENs on `channel` and calls `catchUp` (or
 * `onNotification`) when it is notified. The connection is never returned to the pool; when it drops, it reports the loss
 * and connects again every 500 ms until it listens, then catches up. Nothing it does rejects:
 * a failure here never ends a process.
 *
 * @internal
 */
export function listenOnChannel(options: ChannelListenerOptions): ChannelListener {
  const { pool, channel, secrets, who } = options;
  let closed = false;
  let client: ListeningConnection | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let asked = 0;
  // A failure to listen is told once, until listening works again.
  let told = false;
  let started = false;
  let settleReady: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = { resolve, reject };
  });
  // A caller that does not await it is told through `onError`.
  ready.catch(() => undefined);

  const onNotification = (message: Notification): void => {
    if (message.channel !== channel) return;
    if (options.onNotification === undefined) catchUp();
    else options.onNotification(message.payload);
  };
  const drop = (db: ListeningConnection, error: unknown, what: string): void => {
    if (client !== db) return;
    client = undefined;
    db.release();
    if (closed) return;
    told = true;
    options.onError?.(
      asStoreError(error ?? new Error('the connection ended'), what, {
        secrets,
        hint: 'reconnecting',
      }),
    );
    reconnect();
  };
  const catchUp = (): void => {
    asked++;
    if (running) return;
    running = true;
    void (async () => {
      // A notification during a catch-up asks for one more, which reads it.
      for (let done = 0; done < asked;) {
        done = asked;
        const db = client;
        if (db === undefined || closed) break;
        try {
          await options.catchUp();
        } catch (error) {
          drop(db, error, `${who} could not read what it missed`);
          break;
        }
      }
      running = false;
    })();
  };
  const connect = async (): Promise<void> => {
    const db = await takeListeningConnection(pool, `LISTEN ${escapeIdentifier(channel)}`, {
      onNotification,
      onLost: (held, error) => {
        drop(held, error, `${who} lost its connection`);
      },
    });
    if (closed) {
      db.release();
      return;
    }
    client = db;
    told = false;
    const first = !started;
    started = true;
    settleReady?.resolve();
    settleReady = undefined;
    if (!first || options.catchUpAtStart !== false) catchUp();
  };
  const retry = (error: unknown): void => {
    settleReady?.reject(error);
    settleReady = undefined;
    if (closed) return;
    if (!told) {
      told = true;
      options.onError?.(
        asStoreError(error, `${who} cannot listen`, { secrets, hint: 'retrying every 500 ms' }),
      );
    }
    reconnect();
  };
  const reconnect = (): void => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch(retry);
    }, RECONNECT_MS);
    timer.unref();
  };

  connect().catch(retry);
  return {
    ready,
    close() {
      if (closed) return;
      closed = true;
      settleReady?.reject(new ToolError('store_error', `${who} was closed`));
      settleReady = undefined;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      const db = client;
      client = undefined;
      db?.release();
    },
  };
}
