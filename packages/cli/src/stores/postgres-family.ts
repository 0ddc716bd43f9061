// The PostgreSQL store family: every store it opens borrows one pool, made when the first opens
// and ended when the last closes, so an instance holds one pool (up to 10 connections, the
// listening ones included) however many kinds of store it uses.
import type { createPostgresPool } from '@toolplane/store-postgres';
import { ToolError } from '@toolplane/toolmodel';
import type { StoreConfig } from '../config.js';
import type { StoreFamily } from './family-types.js';

/** A `pg` pool, named without loading pg (the CLI does not depend on it). */
type Pool = ReturnType<typeof createPostgresPool>;

type PostgresConfig = Extract<StoreConfig, { kind: 'postgres' }>;

/** The {@link StoreFamily} of a PostgreSQL store: its stores share one pool. */
export function postgresFamily(config: PostgresConfig): StoreFamily {
  const driver = () => import('@toolplane/store-postgres');
  const schema = config.schema === undefined ? {} : { schema: config.schema };
  // The user store's listener hears an idle pooled connection's failure, as it did when the
  // user store owned its pool.
  let onIdleError: ((error: ToolError) => void) | undefined;
  const lease = poolLease(async () =>
    (await driver()).createPostgresPool({
      connectionString: config.connectionString,
      onIdleError: (error) => {
        const reason = error.message.replaceAll(config.connectionString, '***');
        onIdleError?.(
          new ToolError('store_error', `a pooled PostgreSQL connection failed: ${reason}`, {
            cause: error,
          }),
        );
      },
    }),
  );
  const signalOf = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal });
  const onErrorOf = (onError: ((error: ToolError) => void) | undefined) =>
    onError === undefined ? {} : { onError };
  return {
    userStore: (options = {}) =>
      lease.borrow(async (pool) => {
        const store = await (
          await driver()
        ).createPostgresStore({
          pool,
          ...schema,
          ...signalOf(options.signal),
          ...onErrorOf(options.onError),
          listen: options.listen !== false,
        });
        onIdleError ??= options.onError;
        return store;
      }),
    pinStore: (options = {}) =>
      lease.borrow(async (pool) =>
        (await driver()).createPostgresPinStore({
          pool,
          ...schema,
          ...onErrorOf(options.onError),
          listen: options.listen !== false,
        }),
      ),
    evidenceStore: (options = {}) =>
      lease.borrow(async (pool) =>
        (await driver()).createPostgresEvidenceStore({
          pool,
          ...schema,
          ...onErrorOf(options.onError),
        }),
      ),
    vectorCache: () =>
      lease.borrow(async (pool) => (await driver()).createPostgresVectorCache({ pool, ...schema })),
    credentialStore: async ({ sealingKey, signal }) => {
      const key = sealingKey();
      const store = await lease.borrow(async (pool) =>
        (await driver()).createPostgresCredentialStore({
          pool,
          ...schema,
          ...signalOf(signal),
          key,
        }),
      );
      return { store, close: () => store.close() };
    },
  };
}

interface PoolLease {
  /**
   * Opens a store on the shared pool (made first when there is none) and answers it with a
   * `close` that, once the store has closed, ends the pool if no other store still uses it.
   */
  borrow<T extends { close(): unknown }>(open: (pool: Pool) => Promise<T>): Promise<T>;
}

function poolLease(create: () => Promise<Pool>): PoolLease {
  let current: Promise<Pool> | undefined;
  let users = 0;
  const give = async (): Promise<void> => {
    users--;
    if (users > 0 || current === undefined) return;
    const ending = current;
    current = undefined;
    await (await ending.catch(() => undefined))?.end().catch(() => undefined);
  };
  return {
    async borrow(open) {
      users++;
      let store;
      try {
        current ??= create();
        store = await open(await current);
      } catch (error) {
        await give();
        throw error;
      }
      const closeStore = store.close.bind(store);
      let closing: Promise<void> | undefined;
      return Object.assign(store, {
        close: () =>
          (closing ??= (async () => {
            try {
              await closeStore();
            } finally {
              await give();
            }
          })()),
      });
    },
  };
}
