import type { FetchLike } from '@modelcontextprotocol/client';
import { optionKeys, refuseUnknownOptions, type ToolError } from '@toolplane/toolmodel';
import type { OAuthCredentialStore } from './credential-store.js';
import type { OAuthGrant } from './stored-provider.js';

/** Options of `createConnectorOAuth`. */
export interface ConnectorOAuthOptions {
  /** The connector's server name (its namespace), half of the credentials' store key. */
  readonly server: string;
  /** The protected MCP server's URL (the resource the tokens are minted for). */
  readonly url: string | URL;
  readonly store: OAuthCredentialStore;
  /** `authorization_code` (a person logs in; the default) or `client_credentials`. */
  readonly grant?: OAuthGrant;
  /** A pre-registered client; without one the client registers itself where the server allows. */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /**
   * The PEM (PKCS#8) private key of a client registered for `private_key_jwt`: token requests
   * carry an assertion signed with it (RFC 7523) instead of a client secret. Needs `clientId`;
   * not with `clientSecret`. The key's type picks the algorithm (ES256 for P-256, ES384, ES512,
   * RS256 for RSA, EdDSA for Ed25519) unless {@link ConnectorOAuthOptions.privateKeyAlg} says.
   */
  readonly privateKey?: string;
  /** The JWS algorithm of the `private_key_jwt` assertion, when the key's type does not decide. */
  readonly privateKeyAlg?: string;
  /** Scopes to ask for; by default those the server's metadata lists. */
  readonly scopes?: readonly string[];
  /** An https URL of this client's metadata document, used where the server supports them. */
  readonly clientMetadataUrl?: string;
  readonly clientName?: string;
  /** Refresh this long before the access token expires (default 60 s). */
  readonly refreshBeforeMs?: number;
  /**
   * Makes the connector interactive: when it needs a login (step-up to more scopes, say), it
   * logs in itself, handing the authorization URL here, and waits for the loopback redirect.
   * Without it, such a connector reports `unauthorized` and waits for `toolplane auth login`.
   */
  readonly interactive?: (authorizationUrl: URL) => void | Promise<void>;
  /** The `fetch` for the authorization server (default: the global one). */
  readonly fetch?: FetchLike;
  /**
   * How long one request to the authorization server (discovery, registration, a token request)
   * may take, answer and body, before the run fails with `timeout` (default 30 s).
   */
  readonly requestTimeoutMs?: number;
  /**
   * Told when the store refused to save the credentials (a read-only store, a database that is
   * down): `error` is its `store_error`. The tokens a refresh brought are then kept in memory and
   * used until this process ends, instead of the refresh failing the connection. Without it, the
   * refusal fails the step that saved (a login, a refresh): what `toolplane auth login` wants, as
   * its one job is to save.
   */
  readonly onUnsaved?: (error: ToolError) => void;
}

const KNOWN = optionKeys<ConnectorOAuthOptions>({
  server: true,
  url: true,
  store: true,
  grant: true,
  clientId: true,
  clientSecret: true,
  privateKey: true,
  privateKeyAlg: true,
  scopes: true,
  clientMetadataUrl: true,
  clientName: true,
  refreshBeforeMs: true,
  interactive: true,
  fetch: true,
  requestTimeoutMs: true,
  onUnsaved: true,
});

/**
 * Refuses a key the OAuth client does not take: a misspelt `clientSecret` or `scopes` would
 * otherwise send a login off without them and fail far from the cause.
 *
 * @throws {ToolError} `invalid_config` naming the key and the nearest known one.
 */
export function checkConnectorOAuthOptions(options: unknown): void {
  refuseUnknownOptions(options, KNOWN, 'createConnectorOAuth', { code: 'invalid_config' });
}
