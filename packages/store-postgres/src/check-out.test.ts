import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { checkOut } from './check-out.js';
import { createPostgresPool } from './connection-options.js';
import { hasPostgres } from './testing/postgres-server.js';
import { useThrowawayPostgres } from './testing/throwaway-postgres.js';
import { inTransaction } from './transaction.js';

// A connection lent by the pool and lost between two statements: PostgreSQL stopped or
// restarted, or an administrator ended its process. pg then emits 'error' on it with no
// statement to fail, which, unheard, ends the process: a whole gateway, for one store hiccup.
describe.runIf(hasPostgres())('a lent connection that is lost between statements', () => {
  const server = useThrowawayPostgres();

  /** Ends `db`'s server process from another connection and waits until `db` has heard. */
  const terminate = async (pool: ReturnType<typeof createPostgresPool>, db: PoolClient) => {
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = new Promise((resolve) => db.once('end', resolve));
    await pool.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
    await ended;
  };

  it('fails its next statement, and the pool drops it and goes on', async () => {
    const pool = createPostgresPool({ connectionString: server().url });
    try {
      const db = await checkOut(pool);
      await terminate(pool, db);
      const failure = await db.query('SELECT 1').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      db.release();
      // Only the connection that ended it is left.
      expect(pool.totalCount).toBe(1);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('fails the transaction it was in', async () => {
    const pool = createPostgresPool({ connectionString: server().url });
    try {
      const failure = await inTransaction(pool, async (db) => {
        await terminate(pool, db);
        await db.query('SELECT 1');
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
