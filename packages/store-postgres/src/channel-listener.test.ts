import { randomUUID } from 'node:crypto';
import type { Prompt, StoreChange } from '@toolplane/toolkit';
import type { ToolError } from '@toolplane/toolmodel';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { Client, Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startChangeFeed, type ChangeFeed } from './change-feed.js';
import { listenOnChannel } from './channel-listener.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';
import { hasPostgres, startPostgres, type PostgresServer } from './testing/postgres-server.js';

const available = hasPostgres();

const prompt = (name: string): Prompt => ({ name, template: `Hello from ${name}` });
const put = (name: string): StoreChange => ({ kind: 'prompt', op: 'put', name });

/**
 * Waits, with a bound, until `condition` holds, checking between turns of the event loop: the
 * tests below fake `setTimeout` (to see and fire the reconnect wait), so no timer can pace it.
 */
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

// The reconnect waits are fake timers; pools with no idle timeout add none of their own, so
// `vi.getTimerCount()` counts the listener's alone.
describe.runIf(available)('listeners over LISTEN/NOTIFY', () => {
  let server: PostgresServer;
  let admin: Client;
  let schemas = 0;
  const cleanups: (() => Promise<unknown>)[] = [];
  const pool = (connectionString = server.url): Pool => {
    const opened = new Pool({ connectionString, idleTimeoutMillis: 0 });
    cleanups.push(() => opened.end());
    return opened;
  };
  const backendsNamed = async (name: string): Promise<number[]> =>
    (
      await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [name],
      )
    ).rows.map((row) => row.pid);

  beforeAll(async () => {
    server = await startPostgres();
    admin = new Client({ connectionString: server.url });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin.end();
    await server.stop();
  }, 60_000);
  afterEach(async () => {
    vi.useRealTimers();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  describe('listenOnChannel', () => {
    it('reconnects after failed attempts, telling the loss and the failure to reconnect once each', async () => {
      const role = `listener_${String(++schemas)}`;
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'secret-pw'`);
      const roleUrl = new URL(server.url);
      roleUrl.username = role;
      roleUrl.password = 'secret-pw';
      const channel = `channel_${String(schemas)}`;
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const errors: ToolError[] = [];
      let catchUps = 0;
      const listener = listenOnChannel({
        pool: pool(roleUrl.href),
        channel,
        secrets: [],
        who: 'the test listener',
        catchUp: () => {
          catchUps++;
          return Promise.resolve();
        },
        onError: (error) => {
          errors.push(error);
        },
      });
      cleanups.push(() => listener.close());
      await listener.ready;
      expect(catchUps).toBe(1);

      await admin.query(`ALTER ROLE ${role} NOLOGIN`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1',
        [role],
      );
      await until('the loss is told', () => errors.length === 1);
      // Refused three times: each attempt waits on a timer of its own, and is told once in all.
      for (let refused = 0; refused < 3; refused++) {
        expect(vi.getTimerCount()).toBe(1);
        vi.runOnlyPendingTimers();
        await until('the attempt has failed', () => vi.getTimerCount() === 1);
      }
      expect(errors).toHaveLength(2);
      expect(errors.map((error) => error.code)).toEqual(['store_error', 'store_error']);

      await admin.query(`ALTER ROLE ${role} LOGIN`);
      vi.runOnlyPendingTimers();
      await until('it has caught up', () => catchUps === 2);
      await admin.query('SELECT pg_notify($1, $2)', [channel, 'changed']);
      await until('the notification is read', () => catchUps === 3);
      expect(errors).toHaveLength(2);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe('startChangeFeed', () => {
    /** A fresh schema with a writer store on it, and a feed to start on a pool of its own. */
    const setUp = async () => {
      const schema = `feed_${String(++schemas)}`;
      const writer: PostgresStore = await createPostgresStore({
        pool: pool(),
        schema,
        listen: false,
      });
      cleanups.push(() => writer.close());
      const feedPool = pool();
      const instanceId = randomUUID();
      const seen: StoreChange[] = [];
      const errors: ToolError[] = [];
      const start = async (): Promise<ChangeFeed> => {
        const feed = await startChangeFeed({
          pool: feedPool,
          schema,
          channel: `${schema}_changes`,
          instanceId,
          emit: (change) => seen.push(change),
          onError: (error) => errors.push(error),
          secrets: [],
        });
        cleanups.push(() => feed.close());
        return feed;
      };
      const listenerPid = async (): Promise<number | undefined> =>
        (await backendsNamed(`toolplane:listen:${instanceId}`))[0];
      return { schema, writer, feedPool, seen, errors, start, listenerPid };
    };
    /** A full change notice no writer sent, as any role that may connect can NOTIFY it. */
    const notifyMadeUp = (schema: string, revision: number, op: 'put' | 'delete', key: string) =>
      admin.query('SELECT pg_notify($1, $2)', [
        `${schema}_changes`,
        JSON.stringify({ revision, writer: randomUUID(), kind: 'prompt', op, key, name: key }),
      ]);
    const has = (seen: readonly StoreChange[], change: StoreChange) => () =>
      seen.some((each) => JSON.stringify(each) === JSON.stringify(change));

    it('applies a notification that arrives during a catch-up after it: each change once, in revision order', async () => {
      const { schema, seen, start, listenerPid } = await setUp();
      await start();
      const channel = `${schema}_changes`;
      const writer = randomUUID();
      const locker = new Client({ connectionString: server.url });
      await locker.connect();
      cleanups.push(() => locker.end());
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${schema}.changes IN ACCESS EXCLUSIVE MODE`);
      // Revision 1's payload was cut for NOTIFY's limit: the feed reads the changes table, and
      // waits on the lock.
      await admin.query('SELECT pg_notify($1, $2)', [
        channel,
        JSON.stringify({ revision: 1, writer }),
      ]);
      const pid = await listenerPid();
      await until('the catch-up waits on the lock', async () => {
        const waiting = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'",
          [pid],
        );
        return waiting.rowCount === 1;
      });
      // Committed while the catch-up reads: it reaches the feed before the rows do.
      const notice = (revision: number, key: string) =>
        JSON.stringify({ revision, writer, kind: 'prompt', op: 'put', key, name: key });
      await admin.query('SELECT pg_notify($1, $2)', [channel, notice(3, 'c')]);
      for (const [revision, key] of [
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ] as const) {
        await locker.query(
          `INSERT INTO ${schema}.changes (kind, key, op, name, writer, revision)
           VALUES ('prompt', $1, 'put', $1, $2, $3)`,
          [key, writer, revision],
        );
      }
      await locker.query(`UPDATE ${schema}.state SET revision = 3`);
      await locker.query('COMMIT');
      await until('c is emitted', has(seen, put('c')));
      await admin.query(
        `INSERT INTO ${schema}.changes (kind, key, op, name, writer, revision)
         VALUES ('prompt', 'd', 'put', 'd', $1, 4)`,
        [writer],
      );
      await admin.query('SELECT pg_notify($1, $2)', [channel, notice(4, 'd')]);
      await until('d is emitted', has(seen, put('d')));
      expect(seen).toEqual([put('a'), put('b'), put('c'), put('d')]);
    });

    it('emits nothing for a made-up notification far ahead, and still hears the real changes after it', async () => {
      const { schema, writer, seen, start } = await setUp();
      await start();
      // Any role that may connect may NOTIFY: a made-up change, at a revision far ahead.
      await notifyMadeUp(schema, Number.MAX_SAFE_INTEGER, 'put', 'forged');
      // The made-up notice has the table read, which holds nothing past the last revision: a real
      // write after it is still heard, and the made-up one never was.
      await writer.putPrompt(prompt('real'));
      await until('the real change is emitted', has(seen, put('real')));
      expect(seen).toEqual([put('real')]);
    });

    it('emits nothing for a made-up notification of the very next revision, and still hears the real change of it', async () => {
      const { schema, writer, seen, start } = await setUp();
      await start();
      await writer.putPrompt(prompt('first'));
      await until('first is emitted', has(seen, put('first')));
      // The next revision a writer will take, announced first by another role of the database,
      // as a full record of a change no writer made.
      await notifyMadeUp(schema, 2, 'delete', 'first');
      await writer.putPrompt(prompt('second'));
      await until('the real change of that revision is emitted', has(seen, put('second')));
      expect(seen).toEqual([put('first'), put('second')]);
    });

    it('tells one store_error when its connection is terminated, then emits what was committed meanwhile once', async () => {
      const { writer, seen, errors, start, listenerPid } = await setUp();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      await start();
      await writer.putPrompt(prompt('before'));
      await until('before is emitted', has(seen, put('before')));
      await admin.query('SELECT pg_terminate_backend($1)', [await listenerPid()]);
      await until('the loss is told', () => errors.length === 1);
      // Waiting to reconnect: only the catch-up can report these.
      expect(vi.getTimerCount()).toBe(1);
      await writer.putPrompt(prompt('meanwhile'));
      await writer.deletePrompt('before');
      vi.runOnlyPendingTimers();
      const deleted: StoreChange = { kind: 'prompt', op: 'delete', name: 'before' };
      await until('the catch-up is emitted', has(seen, deleted));
      await writer.putPrompt(prompt('after'));
      await until('after is emitted', has(seen, put('after')));
      expect(seen).toEqual([put('before'), put('meanwhile'), deleted, put('after')]);
      expect(errors.map((error) => error.code)).toEqual(['store_error']);
    });

    it('leaves no timer and no connection when closed during a reconnect wait or a reconnect', async () => {
      const { feedPool, errors, start, listenerPid } = await setUp();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const feed = await start();
      await admin.query('SELECT pg_terminate_backend($1)', [await listenerPid()]);
      await until('the loss is told', () => errors.length === 1);
      expect(vi.getTimerCount()).toBe(1);
      await feed.close();
      expect(vi.getTimerCount()).toBe(0);
      expect(feedPool.totalCount).toBe(0);

      // Closed while the new connection is being taken: it is ended too.
      const again = await start();
      await admin.query('SELECT pg_terminate_backend($1)', [await listenerPid()]);
      await until('the loss is told', () => errors.length === 2);
      vi.runOnlyPendingTimers();
      expect(feedPool.totalCount).toBe(1);
      await again.close();
      expect(vi.getTimerCount()).toBe(0);
      expect(feedPool.totalCount).toBe(0);
      // The server ends the backend a moment after its client hung up; one left open stays.
      await until(
        'the server has ended the listener',
        async () => (await listenerPid()) === undefined,
      );
    });

    it("stops a store's start with cancelled when its signal aborts while the feed waits on a lock", async () => {
      const { schema } = await setUp();
      const lent = pool();
      const locker = new Client({ connectionString: server.url });
      await locker.connect();
      cleanups.push(() => locker.end());
      await locker.query('BEGIN');
      // Left open in a psql session, say: the feed cannot read the revision to start from.
      await locker.query(`LOCK TABLE ${schema}.state IN ACCESS EXCLUSIVE MODE`);
      const controller = new AbortController();
      const opening = createPostgresStore({ pool: lent, schema, signal: controller.signal });
      await until('the feed waits on the lock', async () => {
        const waiting = await admin.query(
          `SELECT 1 FROM pg_stat_activity
            WHERE application_name LIKE 'toolplane:listen:%' AND wait_event_type = 'Lock'`,
        );
        return waiting.rowCount === 1;
      });
      controller.abort();
      expect(await rejectionCodeOf(opening)).toBe('cancelled');
      // Its listening connection is gone (the server's end goes once the lock is released).
      expect(lent.totalCount - lent.idleCount).toBe(0);
      await locker.query('ROLLBACK');
    });

    it('rejects with store_error when it cannot start, and retries nothing', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const missing = pool();
      const errors: ToolError[] = [];
      const options = {
        schema: 'no_such_schema',
        channel: 'no_such_schema_changes',
        instanceId: randomUUID(),
        emit: () => undefined,
        onError: (error: ToolError) => errors.push(error),
        secrets: [],
      };
      // It listens, but cannot read the revision to start from.
      expect(await rejectionCodeOf(startChangeFeed({ ...options, pool: missing }))).toBe(
        'store_error',
      );
      expect(missing.totalCount).toBe(0);
      const wrong = new URL(server.url);
      wrong.password = 'wrong-password';
      const refused = pool(wrong.href);
      // It cannot even connect.
      expect(await rejectionCodeOf(startChangeFeed({ ...options, pool: refused }))).toBe(
        'store_error',
      );
      expect(refused.totalCount).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      expect(errors).toEqual([]);
    });
  });
});
