import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { canonicalResource, ToolError } from '@toolplane/toolmodel';

/** A login in progress: what the redirect must carry back, and what redeems its code. */
export interface PendingLogin {
  /** The PKCE code verifier (S256). */
  readonly codeVerifier?: string;
  /** The `state` sent with the authorization request; the redirect must carry it back. */
  readonly state?: string;
  /** The loopback redirect URI the request named. */
  readonly redirectUrl?: string;
}

/**
 * What a connector keeps about its authorization with one protected MCP server: tokens, the
 * client registration, when the access token expires, the scopes granted, discovery results, and
 * a login in progress. Stores keep it sealed (see {@link CredentialSealer}).
 */
export interface OAuthCredentialRecord {
  readonly tokens?: StoredOAuthTokens;
  /** When the access token expires, in epoch milliseconds (from `expires_in`). */
  readonly expiresAt?: number;
  /** The scopes the authorization server granted (its `scope` answer). */
  readonly scopes?: readonly string[];
  /** The client registration: pre-registered, dynamically registered, or a metadata URL. */
  readonly client?: StoredOAuthClientInformation;
  /** RFC 9728 / RFC 8414 discovery results, kept so a login's two legs agree on the issuer. */
  readonly discovery?: OAuthDiscoveryState;
  readonly pending?: PendingLogin;
  /** When the record was last written, in epoch milliseconds. */
  readonly updatedAt: number;
}

/**
 * Where connectors keep their {@link OAuthCredentialRecord}s, one per {@link credentialKey}.
 * The SQLite and PostgreSQL stores implement it with sealed blobs; {@link MemoryCredentialStore}
 * is for tests.
 */
export interface OAuthCredentialStore {
  load(key: string): Promise<OAuthCredentialRecord | undefined>;
  save(key: string, record: OAuthCredentialRecord): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key that has a record. */
  list(): Promise<string[]>;
}

/** A {@link credentialKey} taken apart. */
export interface CredentialKeyParts {
  /** The connector's server name (its namespace). */
  readonly server: string;
  /** The canonical URL of the protected resource. */
  readonly resource: string;
}

/**
 * The store key of a connector's credentials: its server name and the canonical URL of the
 * resource, so a token never serves another server or another resource.
 *
 * @throws {ToolError} `invalid_config` for an empty server name, one with white space, or a
 * resource that is not an http(s) URL.
 */
export function credentialKey(server: string, resource: string | URL): string {
  if (server === '' || /\s/.test(server)) {
    throw new ToolError(
      'invalid_config',
      `server name ${JSON.stringify(server)} must be non-empty, without spaces`,
    );
  }
  // The client's resource is the URL it fetches, whose fragment is never sent: dropped, not refused.
  return `${server} ${canonicalResource(resource, { fragment: 'drop' })}`;
}

/** Takes a {@link credentialKey} apart; `undefined` for a string that is not one. */
export function parseCredentialKey(key: string): CredentialKeyParts | undefined {
  const space = key.indexOf(' ');
  if (space <= 0) return undefined;
  return { server: key.slice(0, space), resource: key.slice(space + 1) };
}

/** An {@link OAuthCredentialStore} in memory, for tests: records are copied in and out. */
export class MemoryCredentialStore implements OAuthCredentialStore {
  readonly #records = new Map<string, OAuthCredentialRecord>();

  load(key: string): Promise<OAuthCredentialRecord | undefined> {
    const record = this.#records.get(key);
    return Promise.resolve(record === undefined ? undefined : structuredClone(record));
  }

  save(key: string, record: OAuthCredentialRecord): Promise<void> {
    this.#records.set(key, structuredClone(record));
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.#records.delete(key);
    return Promise.resolve();
  }

  list(): Promise<string[]> {
    return Promise.resolve([...this.#records.keys()]);
  }
}
