import {
  CredentialSealer,
  sealedCredentialStore,
  tokenKeyFromEnv,
  type OAuthCredentialStore,
} from '@toolplane/toolkit/oauth';
import { optionKeys } from '@toolplane/toolmodel';
import { openSqliteFile } from './sqlite-open.js';
import { DEFAULT_SQLITE_PATH, migrate } from './sqlite-store.js';
import { asStoreError } from './store-calls.js';
import { checkSqliteOptions } from './sqlite-options.js';

/** Options for {@link createSqliteCredentialStore}. */
export interface SqliteCredentialStoreOptions {
  /** Database file, shared with {@link createSqliteStore}'s. Default `.toolplane/toolplane.db`. */
  readonly path?: string;
  /** The 32-byte AES-256-GCM key; default: read from `TOOLPLANE_TOKEN_KEY` (base64). */
  readonly key?: Uint8Array;
  /** How long a write waits for another writer's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /**
   * Open the file read-only even when this user could write it (default false: read-only only
   * when it cannot). Tokens are then read, and every write refused.
   */
  readonly readOnly?: boolean;
}

/** An {@link OAuthCredentialStore} on SQLite, with {@link SqliteCredentialStore.close}. */
export interface SqliteCredentialStore extends OAuthCredentialStore {
  /**
   * `undefined` when the file was opened for writing; else why it is read-only, the message of
   * the `store_error` every write (a login's tokens, a refresh, a logout) is refused with.
   */
  readonly readOnly: string | undefined;
  close(): void;
}

const KNOWN = optionKeys<SqliteCredentialStoreOptions>({
  path: true,
  key: true,
  busyTimeoutMs: true,
  readOnly: true,
});

/**
 * Keeps connectors' OAuth credentials in the `oauth_credentials` table of a SQLite file, each
 * record sealed with AES-256-GCM before it is written (the table holds only sealed blobs).
 *
 * @throws {ToolError} `invalid_config` when no key is given and `TOOLPLANE_TOKEN_KEY` is missing or
 * not 32 bytes; `store_error` when the file cannot be opened. Reading a record sealed under
 * another key fails with `store_error`.
 */
export function createSqliteCredentialStore(
  options: SqliteCredentialStoreOptions = {},
): SqliteCredentialStore {
  checkSqliteOptions(options, KNOWN, 'createSqliteCredentialStore');
  const sealer = new CredentialSealer(options.key ?? tokenKeyFromEnv());
  const path = options.path ?? DEFAULT_SQLITE_PATH;
  const file = openSqliteFile({
    path,
    readOnly: options.readOnly,
    busyTimeoutMs: options.busyTimeoutMs,
    synchronous: 'full',
    what: 'store',
  });
  const { db } = file;
  try {
    migrate(db, path, file.readOnly !== undefined);
  } catch (error) {
    db.close();
    throw asStoreError(error, `cannot open the SQLite store at ${JSON.stringify(path)}`);
  }
  const sql = {
    get: db.prepare<[string], { sealed: string }>(
      'SELECT sealed FROM oauth_credentials WHERE key = ?',
    ),
    put: db.prepare<[string, string, number]>(
      `INSERT INTO oauth_credentials (key, sealed, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
    ),
    delete: db.prepare<[string]>('DELETE FROM oauth_credentials WHERE key = ?'),
    keys: db.prepare<[], { key: string }>('SELECT key FROM oauth_credentials ORDER BY key'),
  };
  const run = <T>(what: string, work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(asStoreError(error, `cannot ${what} OAuth credentials`));
    }
  };
  const store = sealedCredentialStore(
    {
      get: (key) => run('read', () => sql.get.get(key)?.sealed),
      put: (key, blob) =>
        run('write', () => {
          file.writable();
          sql.put.run(key, blob, Date.now());
        }),
      delete: (key) =>
        run('delete', () => {
          file.writable();
          sql.delete.run(key);
        }),
      keys: () => run('list', () => sql.keys.all().map((row) => row.key)),
    },
    sealer,
  );
  return {
    ...store,
    readOnly: file.readOnly,
    close: () => {
      db.close();
    },
  };
}
