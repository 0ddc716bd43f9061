import { throwIfAborted } from '@toolplane/toolmodel';
import { Client, type Pool, type PoolClient } from 'pg';
import { ignoreLoss } from './check-out.js';

/** Each pooled connection's server process, read once per connection. */
const pids = new WeakMap<PoolClient, number>();

/** A watch set by {@link cancelOnAbort}. @internal */
export interface StatementCancel {
  /**
   * Stops watching; settles once a cancel request sent has landed, so the connection serves no
   * one else while one is still on its way to it.
   */
  stop(): Promise<void>;
}

/**
 * Has the statement `client` runs cancelled on the server when `signal` aborts: a cancel request
 * (`pg_cancel_backend`, sent on another connection of `pool`) stops a statement wherever it
 * waits, a lock included, and its transaction, when it has one, can then only roll back. The
 * statement fails with `query_canceled` (see `isQueryCanceled`).
 *
 * @throws the signal's `cancelled` {@link ToolError} when it has aborted before the watch is set;
 * what the query for the connection's process ID throws.
 * @internal
 */
export async function cancelOnAbort(
  pool: Pool,
  client: PoolClient,
  signal: AbortSignal,
): Promise<StatementCancel> {
  let pid = pids.get(client);
  if (pid === undefined) {
    const result = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    pid = result.rows[0]?.pid;
    if (pid !== undefined) pids.set(client, pid);
  }
  throwIfAborted(signal);
  let cancelling: Promise<unknown> | undefined;
  const cancel = (): void => {
    if (pid !== undefined) cancelling = sendCancel(pool, pid).catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  return {
    async stop() {
      signal.removeEventListener('abort', cancel);
      await cancelling;
    },
  };
}

/**
 * Asks PostgreSQL to cancel what process `pid` runs, on a connection of `pool`, or on one of its
 * own when the pool has none to spare: a pool of one connection (the one that waits) would
 * otherwise hold the cancel until the statement it is for had finished, and then the connection
 * until the cancel had run, which is never.
 */
async function sendCancel(pool: Pool, pid: number): Promise<void> {
  const spare = pool.idleCount > 0 || pool.totalCount < pool.options.max;
  if (spare) {
    await pool.query('SELECT pg_cancel_backend($1)', [pid]);
    return;
  }
  const own = new Client(pool.options);
  ignoreLoss(own);
  try {
    await own.connect();
    await own.query('SELECT pg_cancel_backend($1)', [pid]);
  } finally {
    await own.end().catch(() => undefined);
  }
}
