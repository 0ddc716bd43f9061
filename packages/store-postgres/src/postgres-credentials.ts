import {
  CredentialSealer,
  sealedCredentialStore,
  tokenKeyFromEnv,
  type OAuthCredentialStore,
} from '@toolplane/toolkit/oauth';
import { optionKeys } from '@toolplane/toolmodel';
import { escapeIdentifier } from 'pg';
import { migrate } from './migrations.js';
import { checkConnection, ownPool } from './connection-options.js';
import type { PostgresConnection } from './postgres-store.js';
import { asStoreError } from './store-error.js';

/** Options for {@link createPostgresCredentialStore}. */
export type PostgresCredentialStoreOptions = PostgresConnection & {
  /** The schema, shared with {@link createPostgresStore}'s. Default `toolplane`. */
  readonly schema?: string;
  /** The 32-byte AES-256-GCM key; default: read from `TOOLPLANE_TOKEN_KEY` (base64). */
  readonly key?: Uint8Array;
  /** Aborts connecting and migrating. */
  readonly signal?: AbortSignal;
};

/** An {@link OAuthCredentialStore} in PostgreSQL, with {@link PostgresCredentialStore.close}. */
export interface PostgresCredentialStore extends OAuthCredentialStore {
  /** Ends the pool it created (a pool you passed stays open). */
  close(): Promise<void>;
}

function secretsOf(connectionString: string | undefined): string[] {
  if (connectionString === undefined) return [];
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    return password === '' ? [connectionString] : [connectionString, password];
  } catch {
    return [connectionString];
  }
}

const KNOWN = optionKeys<PostgresCredentialStoreOptions>({
  connectionString: true,
  pool: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  schema: true,
  key: true,
  signal: true,
});

/**
 * Keeps connectors' OAuth credentials in the `oauth_credentials` table of the store's schema
 * (migrating it first), each record sealed with AES-256-GCM before it is written: the database
 * holds only sealed blobs, so every gateway instance with the same `TOOLPLANE_TOKEN_KEY` shares
 * one login.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name, not exactly one of
 * `connectionString` and `pool`, or no key (`TOOLPLANE_TOKEN_KEY` missing or not 32 bytes);
 * `store_error` when the server cannot be reached. Reading a record sealed under another key
 * fails with `store_error`.
 */
export async function createPostgresCredentialStore(
  options: PostgresCredentialStoreOptions,
): Promise<PostgresCredentialStore> {
  const schema = checkConnection(options, 'createPostgresCredentialStore', KNOWN);
  const { connectionString } = options;
  const sealer = new CredentialSealer(options.key ?? tokenKeyFromEnv());
  const secrets = secretsOf(connectionString);
  const { pool, owns: ownsPool } = ownPool(options);
  try {
    await migrate(pool, schema, { signal: options.signal });
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw asStoreError(error, `cannot open the PostgreSQL credential store (schema ${schema})`, {
      secrets,
    });
  }
  const table = `${escapeIdentifier(schema)}.oauth_credentials`;
  const query = async <R extends object>(
    what: string,
    text: string,
    values: unknown[],
  ): Promise<R[]> => {
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (error) {
      throw asStoreError(error, `cannot ${what} OAuth credentials`, { secrets });
    }
  };
  const store = sealedCredentialStore(
    {
      get: async (key) =>
        (
          await query<{ sealed: string }>('read', `SELECT sealed FROM ${table} WHERE key = $1`, [
            key,
          ])
        )[0]?.sealed,
      put: async (key, blob) => {
        await query(
          'write',
          `INSERT INTO ${table} (key, sealed) VALUES ($1, $2)
           ON CONFLICT (key) DO UPDATE SET sealed = excluded.sealed, updated_at = now()`,
          [key, blob],
        );
      },
      delete: async (key) => {
        await query('delete', `DELETE FROM ${table} WHERE key = $1`, [key]);
      },
      keys: async () =>
        (await query<{ key: string }>('list', `SELECT key FROM ${table} ORDER BY key`, [])).map(
          (row) => row.key,
        ),
    },
    sealer,
  );
  let closed = false;
  return {
    ...store,
    close: async () => {
      if (closed || !ownsPool) return;
      closed = true;
      await pool.end();
    },
  };
}
