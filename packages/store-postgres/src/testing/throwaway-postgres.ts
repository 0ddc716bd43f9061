// For this package's vitest files only: the PostgreSQL server a `describe` of tests shares.
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/**
 * Starts a throwaway server before the tests of the enclosing `describe` and stops it after
 * them. Returns what gives the server, once its `beforeAll` has run.
 */
export function useThrowawayPostgres(): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  return () => {
    if (server === undefined) throw new Error('the throwaway PostgreSQL server has not started');
    return server;
  };
}
