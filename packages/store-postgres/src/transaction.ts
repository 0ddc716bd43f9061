import type { Pool, PoolClient } from 'pg';
import { checkOut } from './check-out.js';

/**
 * Runs `work` on one pool connection between BEGIN and COMMIT, and rolls back when it throws.
 * The failure is thrown as it is, for the caller to wrap; a connection that failed is destroyed,
 * never returned to the pool.
 *
 * @internal
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (db: PoolClient) => Promise<T>,
): Promise<T> {
  const db = await checkOut(pool);
  let failure: unknown;
  try {
    await db.query('BEGIN');
    const value = await work(db);
    await db.query('COMMIT');
    return value;
  } catch (error) {
    failure = error;
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    db.release(failure instanceof Error ? failure : undefined);
  }
}
