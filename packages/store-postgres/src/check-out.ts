import type { Client, Pool, PoolClient } from 'pg';

/** Connections already given {@link ignoreLoss}'s listener, which stays theirs for life. */
const guarded = new WeakSet<Client | PoolClient>();

const ignore = (): void => undefined;

/**
 * Keeps a lost connection from ending the process. pg emits 'error' on a connection that breaks
 * while no statement runs on it, and pg-pool drops its own listener while a connection is lent:
 * a connection lost between two statements (a restart or a stop of PostgreSQL, an
 * administrator's `pg_terminate_backend`) would then throw from the event loop. With this, the
 * statement that uses it next fails instead, and the pool drops it when it is released.
 *
 * @internal
 */
export function ignoreLoss(client: Client | PoolClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', ignore);
}

/**
 * Takes a connection from `pool` that cannot end the process when it breaks (see
 * {@link ignoreLoss}); the caller releases it.
 *
 * @internal
 */
export async function checkOut(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  ignoreLoss(client);
  return client;
}
