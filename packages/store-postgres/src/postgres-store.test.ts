import type { Prompt, Resource, Store, StoreChange } from '@toolplane/toolkit';
import { describeStoreContract } from '@toolplane/toolkit/testing/vitest';
import { ToolError } from '@toolplane/toolmodel';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import fc from 'fast-check';
import { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
} from './postgres-store.js';
import {
  hasPostgres,
  POSTGRES_MISSING,
  startPostgres,
  type PostgresServer,
} from './testing/postgres-server.js';

const available = hasPostgres();
const inCi = process.env.CI === 'true';
if (!available && !inCi) console.warn(POSTGRES_MISSING);

describe.runIf(!available && inCi)('PostgreSQL in CI', () => {
  it('finds the server binaries', () => {
    expect.fail(POSTGRES_MISSING);
  });
});

const prompt = (name: string, template = `Hello {{ who }} from ${name}`): Prompt => ({
  name,
  description: `The ${name} prompt`,
  tools: ['builtin:search'],
  template,
});

const text = (name: string, body = `notes about ${name}`): Resource => ({
  uri: `notes://${name}`,
  name,
  mimeType: 'text/markdown',
  text: body,
});

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Records a store's changes and waits, with a bound, until they satisfy a condition. */
function record(store: Store) {
  const changes: StoreChange[] = [];
  const waiters = new Set<() => void>();
  const stop = store.subscribe((change) => {
    changes.push(change);
    for (const check of [...waiters]) check();
  });
  return {
    changes,
    stop,
    until(done: (seen: readonly StoreChange[]) => boolean, timeoutMs = 10_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(changes)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; changes seen: ${JSON.stringify(changes)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

const hasPrompt =
  (name: string, op: 'put' | 'delete' = 'put') =>
  (seen: readonly StoreChange[]): boolean =>
    seen.some((c) => c.kind === 'prompt' && c.name === name && c.op === op);

/** Resolves with the first value `next` produces, for errors reported through a callback. */
function deferred<T>(timeoutMs = 10_000) {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((ok, fail) => {
    const timer = setTimeout(() => {
      fail(new Error('timed out'));
    }, timeoutMs);
    resolve = (value) => {
      clearTimeout(timer);
      ok(value);
    };
  });
  return { promise, resolve };
}

describe.skipIf(!available)('createPostgresStore', () => {
  let server: PostgresServer | undefined;
  let admin: Pool;
  let schemas = 0;
  let schema = '';
  const url = (): string => server?.url ?? '';
  const freshSchema = (): string => `s_${schemas++}`;
  const opened: Store[] = [];
  const open = async (
    options: Omit<PostgresStoreOptions, 'pool' | 'connectionString'> & {
      connectionString?: string;
    } = {},
  ): Promise<PostgresStore> => {
    const store = await createPostgresStore({
      schema,
      ...options,
      connectionString: options.connectionString ?? url(),
    });
    opened.push(store);
    return store;
  };
  const listenerPids = async (store: PostgresStore): Promise<number[]> => {
    const result = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [`toolplane:listen:${store.instanceId}`],
    );
    return result.rows.map((row) => row.pid);
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = new Pool({ connectionString: url() });
  });
  afterAll(async () => {
    await admin.end();
    await server?.stop();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  describeStoreContract('PostgreSQL store', {
    create: () => {
      schema = freshSchema();
      return createPostgresStore({ connectionString: url(), schema });
    },
    reopen: () => createPostgresStore({ connectionString: url(), schema }),
  });

  describe('two instances on one schema', () => {
    it("emits every change made through one instance to the other's subscribers, in order", async () => {
      schema = freshSchema();
      const [one, two] = [await open(), await open()];
      const seen = record(two);
      await one.putPrompt(prompt('greet'));
      await one.putResource(text('doc'));
      await one.deletePrompt('greet');
      await one.deletePrompt('greet');
      await one.deleteResource('notes://doc');
      await seen.until((changes) => changes.length >= 4);
      expect(seen.changes).toEqual([
        { kind: 'prompt', op: 'put', name: 'greet' },
        { kind: 'resource', op: 'put', uri: 'notes://doc', name: 'doc' },
        { kind: 'prompt', op: 'delete', name: 'greet' },
        { kind: 'resource', op: 'delete', uri: 'notes://doc', name: 'doc' },
      ]);
    });

    it('emits its own change exactly once and the other instance’s too', async () => {
      schema = freshSchema();
      const [one, two] = [await open(), await open()];
      const seen = record(one);
      await one.putPrompt(prompt('mine'));
      await two.putPrompt(prompt('theirs'));
      // Notifications arrive in commit order, so once the barrier is seen nothing else is due.
      await two.putPrompt(prompt('barrier'));
      await seen.until(hasPrompt('barrier'));
      expect(seen.changes.map((c) => (c.kind === 'prompt' ? c.name : c.uri))).toEqual([
        'mine',
        'theirs',
        'barrier',
      ]);
    });

    it('delivers a change whose key is too long for a notification payload', async () => {
      schema = freshSchema();
      const [one, two] = [await open(), await open()];
      const seen = record(two);
      const uri = `notes://${'€'.repeat(3000)}`;
      await one.putResource({ uri, name: 'long', text: 'x' });
      await seen.until((changes) => changes.length > 0);
      expect(seen.changes).toEqual([{ kind: 'resource', op: 'put', uri, name: 'long' }]);
    });

    it('keeps stores on different schemas apart', async () => {
      schema = freshSchema();
      const one = await open();
      const two = await open({ schema: freshSchema() });
      const seen = record(two);
      await one.putPrompt(prompt('elsewhere'));
      await two.putPrompt(prompt('here'));
      await seen.until(hasPrompt('here'));
      expect(seen.changes).toEqual([{ kind: 'prompt', op: 'put', name: 'here' }]);
      expect((await two.listPrompts()).map((p) => p.name)).toEqual(['here']);
    });
  });

  describe('listener recovery', () => {
    it('reconnects after its connection is terminated and keeps delivering changes', async () => {
      schema = freshSchema();
      const errors: ToolError[] = [];
      const dropped = deferred<ToolError>();
      const one = await open({
        onError: (error) => {
          errors.push(error);
          dropped.resolve(error);
        },
      });
      const two = await open();
      const seen = record(one);
      const [pid] = await listenerPids(one);
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect((await dropped.promise).code).toBe('store_error');
      await two.putPrompt(prompt('after-drop'));
      await seen.until(hasPrompt('after-drop'));
      await vi.waitFor(async () => {
        const pids = await listenerPids(one);
        expect(pids).toHaveLength(1);
        expect(pids[0]).not.toBe(pid);
      });
      await two.putPrompt(prompt('later'));
      await seen.until(hasPrompt('later'));
      expect(seen.changes.filter(hasPromptIn('after-drop'))).toHaveLength(1);
      expect(errors.every((error) => error.code === 'store_error')).toBe(true);
    });

    it('catches up on changes committed while it could not reconnect, once each', async () => {
      schema = freshSchema();
      // A role of its own, so logins can be refused without touching the other connections.
      const role = `listener_${schemas}`;
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'secret-pw'`);
      await admin.query(`GRANT CREATE ON DATABASE toolplane TO ${role}`);
      const roleUrl = new URL(url());
      roleUrl.username = role;
      roleUrl.password = 'secret-pw';

      const refused = deferred<ToolError>();
      const one = await open({
        connectionString: roleUrl.href,
        onError: (error) => {
          if (error.message.startsWith('cannot reconnect')) refused.resolve(error);
        },
      });
      const two = await open();
      const seen = record(one);
      await two.putPrompt(prompt('gone'));
      await two.putPrompt(prompt('kept', 'v1'));
      await seen.until(hasPrompt('kept'));

      await admin.query(`ALTER ROLE ${role} NOLOGIN`);
      const [pid] = await listenerPids(one);
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect((await refused.promise).code).toBe('store_error');
      // Committed while the listener is away: only the catch-up can report these.
      await two.deletePrompt('gone');
      await two.putPrompt(prompt('kept', 'v2'));
      await two.putPrompt(prompt('kept', 'v3'));
      await two.putPrompt(prompt('new'));
      await admin.query(`ALTER ROLE ${role} LOGIN`);

      await seen.until(hasPrompt('new'));
      await two.putPrompt(prompt('barrier'));
      await seen.until(hasPrompt('barrier'));
      // Each key changed meanwhile once, with its latest op, in commit order.
      expect(seen.changes.slice(2)).toEqual([
        { kind: 'prompt', op: 'delete', name: 'gone' },
        { kind: 'prompt', op: 'put', name: 'kept' },
        { kind: 'prompt', op: 'put', name: 'new' },
        { kind: 'prompt', op: 'put', name: 'barrier' },
      ]);
      expect((await one.getPrompt('kept'))?.template).toBe('v3');
    });
  });

  describe('concurrent writers', () => {
    it('keeps every one of many concurrent puts from two instances', async () => {
      schema = freshSchema();
      const [one, two] = [await open(), await open()];
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 150; i++) {
        writes.push(one.putPrompt(prompt(`one-${i}`)));
        writes.push(two.putPrompt(prompt(`two-${i}`)));
        writes.push((i % 2 === 0 ? one : two).putResource(text(`doc-${i}`)));
      }
      await Promise.all(writes);
      expect(await one.listPrompts()).toHaveLength(300);
      expect(await two.listResources()).toHaveLength(150);
    });

    it('settles every instance on the same value when two instances race on one key', async () => {
      schema = freshSchema();
      const [one, two] = [await open(), await open()];
      const watcher = record(await open());
      const writes: Promise<unknown>[] = [];
      const written = new Set<string>();
      for (let i = 0; i < 40; i++) {
        for (const [who, store] of [
          ['one', one],
          ['two', two],
        ] as const) {
          written.add(`${who}-${i}`);
          writes.push(store.putPrompt(prompt('shared', `${who}-${i}`)));
        }
      }
      await Promise.all(writes);
      await watcher.until((changes) => changes.length === 80);
      const [fromOne, fromTwo] = [await one.getPrompt('shared'), await two.getPrompt('shared')];
      expect(fromOne).toEqual(fromTwo);
      expect(written.has(fromOne?.template ?? '')).toBe(true);
    });

    it("lets a third instance rebuild the prompt set from the writers' events", async () => {
      schema = freshSchema();
      const writers = [await open(), await open()];
      const watcher = record(await open());
      let round = 0;
      const command = fc.record({
        writer: fc.integer({ min: 0, max: 1 }),
        op: fc.constantFrom('put', 'delete'),
        key: fc.constantFrom('a', 'b', 'c'),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 30 }), async (commands) => {
          const prefix = `r${round++}-`;
          // Concurrent, so writes from both instances interleave at the database.
          await Promise.all(
            commands.map(({ writer, op, key }) => {
              const store = writers[writer] as PostgresStore;
              return op === 'put'
                ? store.putPrompt(prompt(prefix + key))
                : store.deletePrompt(prefix + key);
            }),
          );
          const barrier = `${prefix}barrier`;
          await writers[0]?.putPrompt(prompt(barrier));
          await watcher.until(hasPrompt(barrier));
          const replica = new Set<string>();
          for (const change of watcher.changes) {
            if (change.kind !== 'prompt' || !change.name.startsWith(prefix)) continue;
            if (change.op === 'put') replica.add(change.name);
            else replica.delete(change.name);
          }
          const stored = (await writers[1]?.listPrompts()) ?? [];
          const actual = stored.map((p) => p.name).filter((name) => name.startsWith(prefix));
          expect([...replica].sort()).toEqual(actual);
        }),
        { numRuns: 25 },
      );
    });

    it('lets the later of two sequential writes from different instances win', async () => {
      schema = freshSchema();
      const [one, two] = [await open(), await open()];
      for (let i = 0; i < 10; i++) {
        await (i % 2 === 0 ? one : two).putPrompt(prompt('turns', `v${i}`));
        expect((await one.getPrompt('turns'))?.template).toBe(`v${i}`);
        expect((await two.getPrompt('turns'))?.template).toBe(`v${i}`);
      }
    });
  });

  describe('schema and migrations', () => {
    it('migrates once when several instances start together on a new schema', async () => {
      schema = freshSchema();
      const stores = await Promise.all(Array.from({ length: 6 }, () => open()));
      expect(stores).toHaveLength(6);
      const versions = await admin.query<{ version: number }>(
        `SELECT version FROM ${schema}.migrations ORDER BY version`,
      );
      expect(versions.rows.map((row) => row.version)).toEqual([1, 2, 3, 4]);
      await stores[0]?.putPrompt(prompt('works'));
      expect(await stores[5]?.getPrompt('works')).toEqual(prompt('works'));
    });

    it('rejects a schema written by a newer version with store_error', async () => {
      schema = freshSchema();
      await (await open()).close();
      await admin.query(`INSERT INTO ${schema}.migrations (version) VALUES (99)`);
      expect(await rejectionCodeOf(open())).toBe('store_error');
    });

    it('rejects a bad schema name or connection choice with invalid_config', async () => {
      for (const bad of ['', 'Upper', '1st', 'has-dash', 'a'.repeat(49), 'x"; drop']) {
        expect(await rejectionCodeOf(open({ schema: bad }))).toBe('invalid_config');
      }
      const both = { connectionString: url(), pool: admin } as unknown as PostgresStoreOptions;
      expect(await rejectionCodeOf(createPostgresStore(both))).toBe('invalid_config');
      const tiny = new Pool({ connectionString: url(), max: 1 });
      expect(await rejectionCodeOf(createPostgresStore({ pool: tiny }))).toBe('invalid_config');
      await tiny.end();
      expect(await rejectionCodeOf(createPostgresStore({} as PostgresStoreOptions))).toBe(
        'invalid_config',
      );
    });
  });

  describe('stored values', () => {
    it('returns NUL characters and lone surrogates in prompts and resources unchanged', async () => {
      schema = freshSchema();
      const store = await open();
      const odd = 'a\u0000b\ud800c';
      await store.putPrompt({ ...prompt('odd', `x${odd}`), description: odd });
      await store.putResource({ ...text('odd', `y\u0000z`), title: odd });
      expect(await store.getPrompt('odd')).toEqual({
        ...prompt('odd', `x${odd}`),
        description: odd,
      });
      const resource = await store.getResource('notes://odd');
      expect(resource?.text).toBe('y\u0000z');
      expect(resource?.title).toBe(odd);
    });
  });

  describe('errors', () => {
    it('reports a wrong password as store_error without the password or URL', async () => {
      const wrong = new URL(url());
      wrong.password = 'not-the-password-42';
      const error = await failure(open({ connectionString: wrong.href, schema: 'x' }));
      expect(error.code).toBe('store_error');
      expect(error.message).not.toContain('not-the-password-42');
      expect(error.message).not.toContain(wrong.href);
    });

    it('reports an unreachable server as store_error without the password', async () => {
      const down = new URL(url());
      down.port = '1';
      const error = await failure(open({ connectionString: down.href, schema: 'x' }));
      expect(error.code).toBe('store_error');
      expect(error.message).not.toContain(down.password);
    });
  });

  describe('cancellation', () => {
    /** How a put of `blocked` ends when it is aborted while another session locks the table. */
    const putAbortedWhileLocked = async (store: PostgresStore): Promise<string | undefined> => {
      const blocker = await admin.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query(`LOCK TABLE ${schema}.state IN EXCLUSIVE MODE`);
        const controller = new AbortController();
        const put = rejectionCodeOf(
          store.putPrompt(prompt('blocked'), { signal: controller.signal }),
        );
        await waitForLockWait(admin, schema);
        controller.abort();
        return await put;
      } finally {
        await blocker.query('ROLLBACK');
        blocker.release();
      }
    };

    it('cancels a write waiting on a lock, and writes nothing', async () => {
      schema = freshSchema();
      const store = await open();
      expect(await putAbortedWhileLocked(store)).toBe('cancelled');
      expect(await store.getPrompt('blocked')).toBeUndefined();
      await store.putPrompt(prompt('after'));
      expect(await store.getPrompt('after')).toEqual(prompt('after'));
    });

    it('cancels a write waiting on a lock on a pool of one connection, which the cancel cannot borrow', async () => {
      schema = freshSchema();
      await (await open()).close();
      const lone = new Pool({ connectionString: url(), max: 1 });
      const store = await createPostgresStore({ pool: lone, schema, listen: false });
      expect(await putAbortedWhileLocked(store)).toBe('cancelled');
      await store.putPrompt(prompt('after'));
      expect(await store.getPrompt('blocked')).toBeUndefined();
      await store.close();
      await lone.end();
    });

    it('cancels a read waiting on a lock', async () => {
      schema = freshSchema();
      const store = await open();
      const blocker = await admin.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query(`LOCK TABLE ${schema}.prompts IN ACCESS EXCLUSIVE MODE`);
        const controller = new AbortController();
        const list = rejectionCodeOf(store.listPrompts({ signal: controller.signal }));
        await waitForLockWait(admin, schema);
        controller.abort(new Error('user pressed stop'));
        expect(await list).toBe('cancelled');
      } finally {
        await blocker.query('ROLLBACK');
        blocker.release();
      }
      expect(await store.listPrompts()).toEqual([]);
    });

    it('stops an open waiting for another session to finish migrating when its signal aborts', async () => {
      schema = freshSchema();
      // A migration left open in a psql session, say: it holds the schema's advisory lock.
      const holder = await admin.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [0x746f6f6c, schema]);
        const controller = new AbortController();
        const opening = rejectionCodeOf(open({ signal: controller.signal }));
        await vi.waitFor(
          async () => {
            const waiting = await admin.query(
              `SELECT 1 FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE $1`,
              ['%pg_advisory_xact_lock%'],
            );
            expect(waiting.rowCount).toBe(1);
          },
          { timeout: 10_000, interval: 20 },
        );
        controller.abort();
        expect(await opening).toBe('cancelled');
        // Nothing was created, and nothing waits for the lock any more.
        const waiting = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event = 'advisory'`,
        );
        expect(waiting.rowCount).toBe(0);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      const store = await open();
      await store.putPrompt(prompt('after'));
      expect(await store.getPrompt('after')).toEqual(prompt('after'));
    });

    it('rejects with cancelled when opening with an aborted signal', async () => {
      expect(await rejectionCodeOf(open({ signal: AbortSignal.abort() }))).toBe('cancelled');
    });
  });

  describe('spendOnce', () => {
    it('spends a key once across instances, concurrently too, and again once it has expired', async () => {
      schema = freshSchema();
      const [one, two] = await Promise.all([open(), open()]);
      const later = Date.now() + 60_000;
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? one : two).spendOnce('nonce', later)),
      );
      expect(outcomes.filter((spent) => spent)).toHaveLength(1);
      expect(await two.spendOnce('other', later)).toBe(true);
      // An expired key is swept by a later spend and may be spent again (its token has expired).
      expect(await one.spendOnce('brief', Date.now() - 1)).toBe(true);
      expect(await one.spendOnce('sweeper', later)).toBe(true);
      expect(await two.spendOnce('brief', later)).toBe(true);
      expect(await two.spendOnce('__proto__', later)).toBe(true);
      expect(await one.spendOnce('__proto__', later)).toBe(false);
      await one.close();
      expect(await rejectionCodeOf(one.spendOnce('x', later))).toBe('store_error');
    });
  });

  describe('ping', () => {
    it('resolves while the server answers, and fails with store_error once the store is closed', async () => {
      schema = freshSchema();
      const store = await open();
      await expect(store.ping()).resolves.toBeUndefined();
      await expect(store.ping({ signal: AbortSignal.timeout(5_000) })).resolves.toBeUndefined();
      await store.close();
      expect(await rejectionCodeOf(store.ping())).toBe('store_error');
    });

    it('fails with cancelled when its signal has aborted', async () => {
      schema = freshSchema();
      const store = await open();
      expect(await rejectionCodeOf(store.ping({ signal: AbortSignal.abort() }))).toBe('cancelled');
    });
  });

  describe('close', () => {
    it('ends its listener connection and leaves a borrowed pool open', async () => {
      schema = freshSchema();
      const pool = new Pool({ connectionString: url(), max: 3 });
      try {
        const store = await createPostgresStore({ pool, schema });
        expect(await listenerPids(store)).toHaveLength(1);
        await store.close();
        await store.close();
        expect(await listenerPids(store)).toEqual([]);
        expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        expect(await rejectionCodeOf(store.getPrompt('x'))).toBe('store_error');
      } finally {
        await pool.end();
      }
    });

    it('ends its own pool and listener', async () => {
      schema = freshSchema();
      const store = await createPostgresStore({ connectionString: url(), schema });
      await store.putPrompt(prompt('x'));
      await store.close();
      // The server ends a backend after its client has hung up, not before close() returns:
      // the row of a closed connection leaves pg_stat_activity a moment later (one CI run saw
      // it still there). A connection left open would stay there for good.
      await vi.waitFor(
        async () => {
          expect(await listenerPids(store)).toEqual([]);
          const left = await admin.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'toolplane:listen:%'",
          );
          expect(left.rows[0]).toEqual({ n: 0 });
        },
        { timeout: 10_000, interval: 20 },
      );
    });
  });
});

function hasPromptIn(name: string) {
  return (change: StoreChange): boolean => change.kind === 'prompt' && change.name === name;
}

/** Waits until a backend is blocked on a lock in `schema`'s tables. */
async function waitForLockWait(admin: Pool, schema: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const result = await admin.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE $1`,
        [`%"${schema}".%`],
      );
      expect(result.rowCount).toBeGreaterThan(0);
    },
    { timeout: 10_000, interval: 20 },
  );
}
