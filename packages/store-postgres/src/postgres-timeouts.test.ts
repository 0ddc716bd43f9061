import { createServer, type Server, type Socket } from 'node:net';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPinStore } from './postgres-pins.js';
import { createPostgresStore } from './postgres-store.js';
import { hasPostgres, startPostgres, type PostgresServer } from './testing/postgres-server.js';

/** A TCP server on 127.0.0.1 that accepts connections and never says a word. */
async function muteServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://toolplane:mute-secret-pw@127.0.0.1:${String(port)}/toolplane`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a PostgreSQL server that never answers', () => {
  it('fails opening the store with store_error, naming no password', async () => {
    const mute = await muteServer();
    try {
      const error: unknown = await createPostgresStore({
        connectionString: mute.url,
        connectTimeoutMs: 200,
      }).catch((failure: unknown) => failure);
      expect(error).toMatchObject({ code: 'store_error' });
      expect(String((error as Error).message)).not.toContain('mute-secret-pw');
    } finally {
      await mute.close();
    }
  });

  it('refuses a timeout that is not a whole number of milliseconds with invalid_config', async () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(
        await rejectionCodeOf(
          createPostgresStore({
            connectionString: 'postgres://x@127.0.0.1/x',
            connectTimeoutMs: bad,
          }),
        ),
      ).toBe('invalid_config');
      expect(
        await rejectionCodeOf(
          createPostgresPinStore({
            connectionString: 'postgres://x@127.0.0.1/x',
            statementTimeoutMs: bad,
          }),
        ),
      ).toBe('invalid_config');
    }
  });
});

describe.runIf(hasPostgres())('a lock held on a table of the store', () => {
  let server: PostgresServer;
  let admin: Pool;
  beforeAll(async () => {
    server = await startPostgres();
    admin = new Pool({ connectionString: server.url });
  }, 120_000);
  afterAll(async () => {
    await admin.end();
    await server.stop();
  }, 60_000);

  it('fails the statements waiting on it with store_error, and the store answers the rest', async () => {
    const store = await createPostgresStore({
      connectionString: server.url,
      schema: 'locked',
      listen: false,
      statementTimeoutMs: 300,
    });
    const blocker = await admin.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE locked.prompts IN ACCESS EXCLUSIVE MODE');
      // More waiters than the pool has connections: none of them may hold one for good.
      const waiting = Array.from({ length: 12 }, () => rejectionCodeOf(store.listPrompts()));
      expect(await Promise.all(waiting)).toEqual(Array.from({ length: 12 }, () => 'store_error'));
      expect(await store.listResources()).toEqual([]);
      await store.ping();
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
      await store.close();
    }
  });
});
