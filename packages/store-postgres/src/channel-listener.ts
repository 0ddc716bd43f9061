import { ToolError } from '@toolplane/toolmodel';
import { backoffDelay } from '@toolplane/toolrun';
import { escapeIdentifier, escapeLiteral, type Notification, type Pool, type PoolClient } from 'pg';
import { asStoreError } from './store-error.js';

// Full jitter: after a PostgreSQL restart, a fleet of gateways spreads its reconnects over the
// wait instead of arriving in lock step. The first wait is below 100 ms; each failed attempt
// doubles its cap, up to 5 s.
const BACKOFF = { minDelay: 100, maxDelay: 5_000 } as const;
const RETRYING = 'retrying after random waits (full-jitter backoff, doubling up to 5 s)';
const RECONNECTING =
  'reconnecting after a random wait (full-jitter backoff, doubling up to 5 s), then reading what changed meanwhile';

/** A pool connection that LISTENs, taken by {@link takeListeningConnection}. */
interface ListeningConnection {
  readonly client: PoolClient;
  /** Settles once the connection has ended, whatever ended it. */
  readonly ended: Promise<void>;
  /** Destroys the connection: a LISTENing connection never goes back to the pool. */
  release(error?: unknown): void;
}

/**
 * Takes a pool connection and runs `listenSql` (its LISTEN) on it. `onNotification` and
 * `onLost` are attached before the first query, since an 'error' event with no listener would
 * end the process; `onLost` is told when the connection errs or ends, from then on. When the
 * LISTEN fails, the connection is destroyed, and the failure thrown once it has ended.
 */
async function takeListeningConnection(
  pool: Pool,
  listenSql: string,
  handlers: {
    readonly onNotification: (message: Notification) => void;
    readonly onLost: (held: ListeningConnection, error?: unknown) => void;
  },
): Promise<ListeningConnection> {
  const db = await pool.connect();
  const ended = new Promise<void>((resolve) => {
    db.once('end', () => {
      resolve();
    });
  });
  const held: ListeningConnection = {
    client: db,
    ended,
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
    await ended;
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
  /** Names the listening connection in `pg_stat_activity`, when given. */
  readonly applicationName?: string | undefined;
  /**
   * Reads what other instances changed: called once listening (at first, and after every
   * reconnect, for what was missed meanwhile) and, without `onNotification`, on each
   * notification. `client` is the listening connection, free while this runs. A rejection drops
   * the connection, which reconnects and calls it again, so nothing goes unread.
   */
  readonly catchUp: (client: PoolClient) => Promise<void>;
  /**
   * For a channel whose payloads say what changed: told each notification's payload in place of
   * a catch-up, which then runs only once listening. A promise it returns is awaited before
   * anything else is handled; a rejection drops the connection as `catchUp`'s does. Default:
   * each notification asks for a catch-up.
   */
  readonly onNotification?:
    ((payload: string | undefined, client: PoolClient) => void | Promise<void>) | undefined;
  /**
   * Whether the first time it listens also catches up; `false` for a caller that has missed
   * nothing yet (it catches up after each reconnect all the same). Default true.
   */
  readonly catchUpAtStart?: boolean | undefined;
  /**
   * Whether a failure before it first listens (and catches up) is retried like a later one
   * (default true). `false` rejects `ready` with it and stops there: no timer, no connection.
   */
  readonly retryAtStart?: boolean | undefined;
  /**
   * Told with a `store_error` when the listening connection is lost, cannot be taken, or
   * cannot read what was missed; it reconnects. Each of the three is told once until it
   * listens and has caught up again.
   */
  readonly onError?: ((error: ToolError) => void) | undefined;
}

/** A listener started by {@link listenOnChannel}. @internal */
export interface ChannelListener {
  /**
   * Settles once it first listens and (unless `catchUpAtStart` is false) has caught up; rejects
   * with the first failure to (it goes on retrying until closed, unless `retryAtStart` is
   * false). A caller that must listen before it starts awaits it.
   */
  readonly ready: Promise<void>;
  /**
   * Stops listening: settles once no reconnect is waiting and its connection (one being taken
   * too) has ended. Idempotent.
   */
  close(): Promise<void>;
}

type Work = { readonly kind: 'catch-up' } | { readonly kind: 'notice'; readonly payload?: string };

/**
 * Holds one pool connection that LISTENs on `channel` and calls `catchUp` (or `onNotification`)
 * when it is notified, one call at a time, in the order they were asked for: a notification
 * that arrives during a catch-up is handled after it. The connection is never returned to the
 * pool; when it drops, it reports the loss and connects again after a full-jitter backoff until
 * it listens, then catches up. Nothing it does rejects but `ready`: a failure here never ends a
 * process.
 *
 * @internal
 */
export function listenOnChannel(options: ChannelListenerOptions): ChannelListener {
  const { pool, channel, secrets, who } = options;
  const listenSql =
    (options.applicationName === undefined
      ? ''
      : `SET application_name = ${escapeLiteral(options.applicationName)}; `) +
    `LISTEN ${escapeIdentifier(channel)}`;
  const retryAtStart = options.retryAtStart !== false;
  let closed = false;
  let stopped: Promise<void> | undefined;
  let client: ListeningConnection | undefined;
  let connecting: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let attempt = 0;
  // Whether it has listened and caught up once: until then, a failure is a failure to start.
  let started = false;
  // The kinds of failure told since it last listened and caught up.
  const told = new Set<'lost' | 'connect' | 'read'>();
  // Catch-ups and notifications, handled one at a time so changes apply in commit order.
  const queue: Work[] = [];
  let pumping = false;
  let settleReady: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    settleReady = { resolve, reject };
  });
  // A caller that does not await it is told through `onError`.
  ready.catch(() => undefined);

  const tell = (kind: 'lost' | 'connect' | 'read', error: ToolError): void => {
    if (closed || told.has(kind)) return;
    told.add(kind);
    options.onError?.(error);
  };
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      closed = true;
      queue.length = 0;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      const db = client;
      client = undefined;
      db?.release();
      await Promise.all([db?.ended, connecting]);
    })();
    return stopped;
  };
  /** A failure before it first caught up: rejects `ready`; whether that stops it. */
  const failedToStart = (error: unknown): boolean => {
    if (started) return false;
    const settle = settleReady;
    settleReady = undefined;
    if (retryAtStart) {
      settle?.reject(error);
      return false;
    }
    // Rejected once the connection is gone, so the caller finds nothing left behind.
    void stop().then(() => {
      settle?.reject(error);
    });
    return true;
  };
  const caughtUp = (): void => {
    attempt = 0;
    told.clear();
    if (started) return;
    started = true;
    settleReady?.resolve();
    settleReady = undefined;
  };
  const lose = (db: ListeningConnection, error: unknown, how: 'lost' | 'read'): void => {
    if (client !== db) return;
    client = undefined;
    // What was queued is read again by the catch-up after the reconnect.
    queue.length = 0;
    db.release(error);
    if (closed || failedToStart(error ?? new Error('the connection ended'))) return;
    tell(
      how,
      asStoreError(
        error ?? new Error('the connection ended'),
        how === 'lost' ? `${who} lost its connection` : `${who} could not read what it missed`,
        { secrets, hint: RECONNECTING },
      ),
    );
    reconnect();
  };
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      for (let work = queue.shift(); work !== undefined; work = queue.shift()) {
        const db = client;
        if (db === undefined || closed) continue;
        try {
          if (work.kind === 'catch-up') {
            await options.catchUp(db.client);
            if (client === db) caughtUp();
          } else {
            await options.onNotification?.(work.payload, db.client);
          }
        } catch (error) {
          lose(db, error, 'read');
        }
      }
    } finally {
      pumping = false;
    }
  };
  const askCatchUp = (): void => {
    // A catch-up not yet begun reads whatever a second one asked now would.
    if (queue.at(-1)?.kind !== 'catch-up') queue.push({ kind: 'catch-up' });
    void pump();
  };
  const onNotification = (message: Notification): void => {
    if (message.channel !== channel) return;
    if (options.onNotification === undefined) {
      askCatchUp();
      return;
    }
    queue.push(
      message.payload === undefined
        ? { kind: 'notice' }
        : { kind: 'notice', payload: message.payload },
    );
    void pump();
  };
  const connect = async (): Promise<void> => {
    let db: ListeningConnection;
    try {
      db = await takeListeningConnection(pool, listenSql, {
        onNotification,
        onLost: (held, error) => {
          lose(held, error, 'lost');
        },
      });
    } catch (error) {
      if (closed || failedToStart(error)) return;
      const what = started ? `cannot reconnect ${who}` : `${who} cannot listen`;
      tell('connect', asStoreError(error, what, { secrets, hint: RETRYING }));
      reconnect();
      return;
    }
    if (closed) {
      db.release();
      await db.ended;
      return;
    }
    client = db;
    if (started || options.catchUpAtStart !== false) askCatchUp();
    else caughtUp();
  };
  const reconnect = (): void => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        connecting = connect();
      },
      backoffDelay(attempt++, BACKOFF),
    );
    timer.unref();
  };

  connecting = connect();
  return {
    ready,
    close() {
      settleReady?.reject(new ToolError('store_error', `${who} was closed`));
      settleReady = undefined;
      return stop();
    },
  };
}
