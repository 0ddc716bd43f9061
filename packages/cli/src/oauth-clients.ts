import {
  createConnectorOAuth,
  tokenKeyFromEnv,
  type ConnectorOAuth,
  type OAuthCredentialStore,
} from '@toolplane/toolkit/oauth';
import type { ToolError } from '@toolplane/toolmodel';
import type { ConnectorConfig, StoreConfig } from './config.js';
import { storeFamily, type OpenCredentials, type StoreFamily } from './stores/store-family.js';

export type { OpenCredentials } from './stores/store-family.js';

/**
 * Opens where connectors' OAuth credentials are kept: next to the user store (its SQLite file or
 * PostgreSQL schema), sealed with `TOOLPLANE_TOKEN_KEY`; in memory for a memory store.
 *
 * @throws {ToolError} `invalid_config` when `TOOLPLANE_TOKEN_KEY` is missing or not 32 bytes;
 * `store_error` when the store cannot be opened.
 */
export function openCredentials(
  config: StoreConfig,
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    signal?: AbortSignal;
    /** The family to open it in (a toolkit's, so on PostgreSQL it shares the toolkit's pool). */
    family?: StoreFamily;
  } = {},
): Promise<OpenCredentials> {
  return (options.family ?? storeFamily(config)).credentialStore({
    sealingKey: () => tokenKeyFromEnv({ ...(options.env ?? process.env) }),
    signal: options.signal,
  });
}

/** The OAuth client of a connector with an `auth` key, on `store`. */
export function connectorOAuth(
  connector: ConnectorConfig,
  store: OAuthCredentialStore,
  options: {
    interactive?: (url: URL) => void | Promise<void>;
    /** See `ConnectorOAuthOptions.onUnsaved`: absent for `auth login`, whose job is to save. */
    onUnsaved?: (error: ToolError) => void;
  } = {},
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
    ...(options.onUnsaved === undefined ? {} : { onUnsaved: options.onUnsaved }),
  });
}
