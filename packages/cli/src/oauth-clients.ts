import {
  createConnectorOAuth,
  MemoryCredentialStore,
  tokenKeyFromEnv,
  type ConnectorOAuth,
  type OAuthCredentialStore,
} from '@toolplane/toolkit/oauth';
import type { ConnectorConfig, StoreConfig } from './config.js';

/** A credential store and the means to close it. */
export interface OpenCredentials {
  readonly store: OAuthCredentialStore;
  close(): Promise<void>;
}

/**
 * Opens where connectors' OAuth credentials are kept: next to the user store (its SQLite file or
 * PostgreSQL schema), sealed with `TOOLPLANE_TOKEN_KEY`; in memory for a memory store.
 *
 * @throws {ToolError} `invalid_config` when `TOOLPLANE_TOKEN_KEY` is missing or not 32 bytes;
 * `store_error` when the store cannot be opened.
 */
export async function openCredentials(
  config: StoreConfig,
  options: { env?: Readonly<Record<string, string | undefined>>; signal?: AbortSignal } = {},
): Promise<OpenCredentials> {
  if (config.kind === 'memory') {
    return { store: new MemoryCredentialStore(), close: () => Promise.resolve() };
  }
  const key = { key: tokenKeyFromEnv({ ...(options.env ?? process.env) }) };
  switch (config.kind) {
    // Each store's driver (a native module, or pg) loads only for the store the config names.
    case 'sqlite': {
      const { createSqliteCredentialStore } = await import('@toolplane/store-sqlite');
      const store = createSqliteCredentialStore({ path: config.path, ...key });
      return {
        store,
        close: () => {
          store.close();
          return Promise.resolve();
        },
      };
    }
    case 'postgres': {
      const { createPostgresCredentialStore } = await import('@toolplane/store-postgres');
      const store = await createPostgresCredentialStore({
        connectionString: config.connectionString,
        ...(config.schema === undefined ? {} : { schema: config.schema }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...key,
      });
      return { store, close: () => store.close() };
    }
  }
}

/** The OAuth client of a connector with an `auth` key, on `store`. */
export function connectorOAuth(
  connector: ConnectorConfig,
  store: OAuthCredentialStore,
  options: { interactive?: (url: URL) => void | Promise<void> } = {},
): ConnectorOAuth | undefined {
  const auth = connector.auth;
  const source = connector.source;
  if (auth === undefined || typeof source !== 'object' || !('url' in source)) return undefined;
  return createConnectorOAuth({
    server: connector.namespace,
    url: source.url,
    store,
    grant: auth.grant,
    ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }),
    ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
    ...(auth.privateKey === undefined ? {} : { privateKey: auth.privateKey }),
    ...(auth.privateKeyAlg === undefined ? {} : { privateKeyAlg: auth.privateKeyAlg }),
    ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
    ...(auth.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: auth.clientMetadataUrl }),
    ...(options.interactive === undefined ? {} : { interactive: options.interactive }),
  });
}
