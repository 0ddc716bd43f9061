import { randomBytes } from 'node:crypto';
import type {
  AddClientAuthentication,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import type { OAuthCredentialRecord, OAuthCredentialStore } from './credential-store.js';

/** How a connector obtains tokens. */
export type OAuthGrant = 'authorization_code' | 'client_credentials';

/** What {@link StoredOAuthProvider} needs to know. */
export interface StoredProviderSettings {
  readonly server: string;
  readonly key: string;
  readonly store: OAuthCredentialStore;
  readonly grant: OAuthGrant;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly clientMetadataUrl?: string | undefined;
  readonly clientName?: string | undefined;
  /** How token requests authenticate the client, when not by its secret (`private_key_jwt`). */
  readonly clientAuthentication?: AddClientAuthentication | undefined;
  /**
   * Told the store's `store_error` when a change (tokens from a refresh, say) could not be saved:
   * the change is then kept in memory and used. Without it, the refusal is thrown.
   */
  readonly onUnsaved?: ((error: ToolError) => void) | undefined;
}

/** A change to a record: `undefined` removes a field. */
type RecordChange = {
  readonly [K in Exclude<keyof OAuthCredentialRecord, 'updatedAt'>]?:
    OAuthCredentialRecord[K] | undefined;
};

/** Where a code grant's redirect goes when no login is in progress: never listened on. */
const IDLE_REDIRECT = 'http://127.0.0.1/callback';

/**
 * The `unauthorized` error of a connector that needs a person to log in: no tokens, or a refresh
 * token the server no longer honours.
 */
export function authRequired(server: string, why: string): ToolError {
  return new ToolError(
    'unauthorized',
    `MCP server "${server}" needs a login (${why}): run \`toolplane auth login ${server}\``,
  );
}

/** Whether `error`, or an error in its `cause` chain, is a {@link ToolError} `unauthorized`. */
export function isAuthRequired(error: unknown): boolean {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; depth++) {
    if (ToolError.isInstance(at) && at.code === 'unauthorized') return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The SDK's {@link OAuthClientProvider}, its state kept in an {@link OAuthCredentialStore}
 * record, so `auth()` carries the protocol (discovery, registration, PKCE, refresh, the issuer
 * checks) and every step survives a restart.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  /** The loopback redirect of the login in progress. */
  redirectTo: string | undefined;
  /** The `state` of the login in progress, which its loopback listener expects back. */
  loginState: string | undefined;
  /** Where the authorization URL goes during a login; outside one, a redirect means "log in". */
  onAuthorizationUrl: ((url: URL) => void | Promise<void>) | undefined;
  /** Set for a `private_key_jwt` client: signs an assertion into each token request. */
  readonly addClientAuthentication?: AddClientAuthentication;
  readonly #settings: StoredProviderSettings;
  #record: OAuthCredentialRecord | undefined;
  #loaded = false;

  constructor(settings: StoredProviderSettings) {
    this.#settings = settings;
    if (settings.clientMetadataUrl !== undefined)
      this.clientMetadataUrl = settings.clientMetadataUrl;
    if (settings.clientAuthentication !== undefined)
      this.addClientAuthentication = settings.clientAuthentication;
  }

  /** The stored record, read once and then kept (this provider is its only writer). */
  async record(): Promise<OAuthCredentialRecord | undefined> {
    if (!this.#loaded) {
      this.#record = await this.#settings.store.load(this.#settings.key);
      this.#loaded = true;
    }
    return this.#record;
  }

  /** Forgets the cached record, so the next read goes to the store. */
  reload(): void {
    this.#loaded = false;
  }

  async update(change: RecordChange): Promise<void> {
    const merged = { ...(await this.record()), ...change, updatedAt: Date.now() };
    const next = Object.fromEntries(
      Object.entries(merged).filter((entry: [string, unknown]) => entry[1] !== undefined),
    ) as unknown as OAuthCredentialRecord;
    this.#record = next;
    try {
      await this.#settings.store.save(this.#settings.key, next);
    } catch (error) {
      const { onUnsaved } = this.#settings;
      if (onUnsaved === undefined || !ToolError.isInstance(error) || error.code !== 'store_error')
        throw error;
      onUnsaved(error);
    }
  }

  get redirectUrl(): string | undefined {
    if (this.#settings.grant === 'client_credentials') return undefined;
    return this.redirectTo ?? IDLE_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { grant, clientSecret, scopes, clientName, clientAuthentication } = this.#settings;
    const scope = scopes === undefined || scopes.length === 0 ? {} : { scope: scopes.join(' ') };
    const method =
      clientAuthentication !== undefined
        ? 'private_key_jwt'
        : clientSecret === undefined && grant !== 'client_credentials'
          ? 'none'
          : 'client_secret_basic';
    if (grant === 'client_credentials') {
      return {
        client_name: clientName ?? 'toolplane',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: method,
        ...scope,
      };
    }
    return {
      client_name: clientName ?? 'toolplane',
      redirect_uris: [this.redirectUrl ?? IDLE_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
      ...scope,
    };
  }

  async state(): Promise<string> {
    const state = this.loginState ?? randomBytes(24).toString('base64url');
    const pending = (await this.record())?.pending;
    await this.update({ pending: { ...pending, state } });
    return state;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const stored = (await this.record())?.client;
    const { clientId, clientSecret } = this.#settings;
    if (clientId === undefined) return stored;
    if (stored?.client_id === clientId) return stored;
    return clientSecret === undefined
      ? { client_id: clientId }
      : { client_id: clientId, client_secret: clientSecret };
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.update({ client });
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.record())?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const expiresAt =
      tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000;
    const granted = tokens.scope?.split(' ').filter((s) => s !== '');
    const previous = await this.record();
    // A refresh answer may leave the refresh token out: the old one still holds (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? previous?.tokens?.refresh_token;
    await this.update({
      tokens: refresh === undefined ? tokens : { ...tokens, refresh_token: refresh },
      expiresAt,
      scopes: granted ?? previous?.scopes ?? this.#settings.scopes,
      pending: undefined,
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const hand = this.onAuthorizationUrl;
    if (hand === undefined) throw authRequired(this.#settings.server, 'no usable tokens');
    // MCP authorization (2025-11-25): PKCE support is known only from the server's metadata, and
    // a client MUST refuse to go on when it lists no S256 there. The SDK refuses a list without
    // S256; a missing list (or no metadata at all) is refused here, before anyone logs in.
    const metadata: Record<string, unknown> = {
      ...(await this.record())?.discovery?.authorizationServerMetadata,
    };
    const methods = metadata.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes('S256')) {
      throw new ToolError(
        'unauthorized',
        `the authorization server of MCP server "${this.#settings.server}" does not say it supports PKCE (no S256 in the code_challenge_methods_supported of its metadata): not logging in`,
      );
    }
    await hand(authorizationUrl);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    const pending = (await this.record())?.pending;
    await this.update({ pending: { ...pending, codeVerifier } });
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.record())?.pending?.codeVerifier;
    if (verifier === undefined) {
      throw new ToolError('unauthorized', `no login to "${this.#settings.server}" is in progress`);
    }
    return verifier;
  }

  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    if (scope === 'all') {
      this.#record = undefined;
      await this.#settings.store.delete(this.#settings.key);
      return;
    }
    const field = {
      client: 'client',
      tokens: 'tokens',
      verifier: 'pending',
      discovery: 'discovery',
    } as const;
    await this.update(
      scope === 'tokens'
        ? { tokens: undefined, expiresAt: undefined }
        : { [field[scope]]: undefined },
    );
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update({ discovery });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.record())?.discovery;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.#settings.grant !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined && scope !== '') params.set('scope', scope);
    return params;
  }
}
