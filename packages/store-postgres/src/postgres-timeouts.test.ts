import { connect, createServer, type Server, type Socket } from 'node:net';
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
      return new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/**
 * A TCP proxy on 127.0.0.1 to `target` (a real server) that can be frozen: from then on it
 * passes nothing either way, as a server that stopped or a network that dropped its packets.
 */
async function freezableProxy(
  target: URL,
): Promise<{ url: string; freeze: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.href);
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.href,
    freeze: () => {
      frozen = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      });
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
      expect((error as Error).message).not.toContain('mute-secret-pw');
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

  it('fails a call with store_error when the server stops answering mid-run', async () => {
    const proxy = await freezableProxy(new URL(server.url));
    const store = await createPostgresStore({
      connectionString: proxy.url,
      schema: 'frozen',
      listen: false,
      statementTimeoutMs: 100,
    });
    try {
      expect(await store.listPrompts()).toEqual([]);
      proxy.freeze();
      // The server's own statement timeout cannot fire: only the client's bound ends the wait.
      expect(await rejectionCodeOf(store.listPrompts())).toBe('store_error');
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
