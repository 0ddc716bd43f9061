// What `serve --http` needs to run as one of several identical instances behind a load
// balancer: a name for this process, a readiness check on the shared store, a drain bound.
import { hostname } from 'node:os';
import type { PostgresStore } from '@toolplane/store-postgres';
import { ToolError, type Store } from '@toolplane/toolkit';

/** The environment variable naming this instance (over `http.instanceId` in the config). */
export const INSTANCE_VARIABLE = 'TOOLPLANE_INSTANCE_ID';

/**
 * The environment variable holding the key that seals 2026 `requestState`s: the same on every
 * instance, so that an `input_required` retry can be resumed on whichever instance it reaches.
 */
export const REQUEST_STATE_KEY_VARIABLE = 'TOOLPLANE_REQUEST_STATE_KEY';

/** How long `serve --http` lets calls in flight finish on SIGTERM unless `http.drainMs` says. */
export const DEFAULT_DRAIN_MS = 10_000;

const INSTANCE_ID = /^[\w.:-]{1,128}$/;

/**
 * This instance's ID: `TOOLPLANE_INSTANCE_ID`, else the config's `http.instanceId`, else
 * `<hostname>-<pid>` (unique on one machine, and telling which machine in a fleet).
 *
 * @throws {ToolError} `invalid_argument` for an ID that is not 1-128 of `A-Z a-z 0-9 _ . : -`.
 */
export function instanceIdFor(
  env: Readonly<Record<string, string | undefined>>,
  configured: string | undefined,
): string {
  const fromEnv = env[INSTANCE_VARIABLE] ?? '';
  if (fromEnv !== '') {
    if (!INSTANCE_ID.test(fromEnv)) {
      throw new ToolError(
        'invalid_argument',
        `${INSTANCE_VARIABLE}=${JSON.stringify(fromEnv)}: must be 1-128 of A-Z a-z 0-9 _ . : -`,
      );
    }
    return fromEnv;
  }
  return configured ?? `${hostname()}-${String(process.pid)}`;
}

/**
 * The readiness check `/healthz` asks: a PostgreSQL store must answer a query; a SQLite file
 * or memory store lives in this process and is ready whenever the process is.
 */
export function storeReadiness(
  store: Store,
): (options: { signal: AbortSignal }) => Promise<boolean> {
  if (!isPostgresStore(store)) return () => Promise.resolve(true);
  return async ({ signal }) => {
    try {
      await store.ping({ signal });
      return true;
    } catch {
      return false;
    }
  };
}

/**
 * What makes a 2026 `requestState` serve once on the whole fleet: with a PostgreSQL store, its
 * nonce is spent in the shared database (`spendOnce`); with any other store, none (each instance
 * then remembers only the states it has seen).
 */
export function requestStateSpenderFor(
  store: Store,
):
  | ((nonce: string, expiresAt: number, options: { signal: AbortSignal }) => Promise<boolean>)
  | undefined {
  if (!isPostgresStore(store) || typeof store.spendOnce !== 'function') return undefined;
  return (nonce, expiresAt, { signal }) =>
    store.spendOnce(`request-state:${nonce}`, expiresAt, { signal });
}

function isPostgresStore(store: Store): store is PostgresStore {
  return typeof (store as Partial<PostgresStore>).ping === 'function';
}

/**
 * The fleet's `requestState` key from `TOOLPLANE_REQUEST_STATE_KEY`, or undefined (each process
 * then seals with a random key of its own, and a retry resumes only where its call began).
 *
 * @throws {ToolError} `invalid_argument` for a key shorter than 32 bytes.
 */
export function requestStateKeyFor(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const key = env[REQUEST_STATE_KEY_VARIABLE] ?? '';
  if (key === '') return undefined;
  if (Buffer.byteLength(key) < 32) {
    throw new ToolError(
      'invalid_argument',
      `${REQUEST_STATE_KEY_VARIABLE} must be at least 32 bytes (e.g. \`openssl rand -base64 33\`), got ${String(Buffer.byteLength(key))}`,
    );
  }
  return key;
}
