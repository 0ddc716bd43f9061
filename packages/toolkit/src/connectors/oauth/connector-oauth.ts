import { randomBytes } from 'node:crypto';
import {
  auth,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  isStrictScopeSuperset,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { canonicalResource, ToolError } from '@toolplane/toolmodel';
import { checkConnectorOAuthOptions, type ConnectorOAuthOptions } from './client-options.js';
import { credentialKey } from './credential-store.js';
import { listenForRedirect } from './loopback-redirect.js';
import { shellWord } from '@toolplane/toolmodel/text';
import { describe, scopeHint, withoutSecrets } from './oauth-messages.js';
import { guardOAuthFetch } from './oauth-fetch.js';
import { privateKeyJwt } from './private-key-jwt.js';
import { revokeTokens } from './revoke.js';
import { TokenRefusals } from './token-refusals.js';
import { authRequired, StoredOAuthProvider, type OAuthGrant } from './stored-provider.js';

export type { ConnectorOAuthOptions } from './client-options.js';

/** The most an authorization server's answer may hold: metadata and tokens are small. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** What {@link ConnectorOAuth.status} reports: never a token. */
export interface OAuthStatus {
  readonly server: string;
  readonly resource: string;
  readonly grant: OAuthGrant;
  readonly loggedIn: boolean;
  /** When the access token expires (epoch ms), if the server said. */
  readonly expiresAt?: number;
  readonly scopes: readonly string[];
  readonly refreshable: boolean;
}

/** Options of {@link ConnectorOAuth.login}. */
export interface LoginOptions {
  /** Receives the authorization URL to open in a browser. */
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
  /** A fixed loopback redirect URI (default: an ephemeral port of 127.0.0.1). */
  readonly redirectUrl?: string;
  /** Scopes to ask for instead of the configured ones. */
  readonly scopes?: readonly string[];
  /** How long to wait for the redirect (default 5 minutes). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What the HTTP transport sees of a refused request. */
export interface ConnectorAuthRefusal {
  readonly status: 401 | 403;
  readonly wwwAuthenticate: string | undefined;
  /**
   * The `Authorization` header value the refused request carried: tells a token just issued and
   * refused (not fetched again at once) from one another request already replaced.
   */
  readonly authorization?: string | undefined;
}

/** @deprecated Renamed {@link ConnectorAuthRefusal} (the gateway has an `AuthRefusal` of its own); this alias goes in the next minor. */
export type AuthRefusal = ConnectorAuthRefusal;

/** One run of the SDK's `auth()`. */
interface AuthRun {
  readonly scope?: string;
  readonly resourceMetadataUrl?: URL;
  readonly forceReauthorization?: boolean;
  readonly authorizationCode?: string;
  readonly iss?: string;
  readonly signal?: AbortSignal;
}

/**
 * A connector's OAuth 2.1 client for one protected MCP server, on the SDK's `auth()`: client
 * credentials, or authorization code + PKCE (S256) through a loopback redirect; dynamic client
 * registration or a client ID metadata document where the server advertises them; refresh
 * before expiry and once on a 401; step-up on 403 `insufficient_scope`.
 *
 * The access token goes only to the MCP server it was minted for (the transport sends it only
 * to that origin); the refresh token and client secret only to the issuer the SDK recorded for
 * them. None is ever put in an error, event or log line.
 */
export class ConnectorOAuth {
  readonly server: string;
  /** The canonical URL of the protected resource. */
  readonly resource: string;
  /** The store key of its credentials. */
  readonly key: string;
  readonly grant: OAuthGrant;
  readonly #options: ConnectorOAuthOptions;
  readonly #provider: StoredOAuthProvider;
  readonly #refusals = new TokenRefusals();
  #running: Promise<void> | undefined;

  /** @throws {ToolError} `invalid_config` for a bad server name or URL. */
  constructor(options: ConnectorOAuthOptions) {
    checkConnectorOAuthOptions(options);
    this.server = options.server;
    this.resource = canonicalResource(options.url, { fragment: 'drop' });
    this.key = credentialKey(options.server, options.url);
    this.grant = options.grant ?? 'authorization_code';
    if (this.grant === 'client_credentials' && options.clientId === undefined) {
      throw new ToolError(
        'invalid_config',
        `server "${options.server}": the client_credentials grant needs a clientId and a clientSecret or privateKey`,
      );
    }
    const clientAuthentication =
      options.privateKey === undefined ? undefined : privateKeyJwt(options);
    this.#options = options;
    this.#provider = new StoredOAuthProvider({
      server: options.server,
      key: this.key,
      store: options.store,
      grant: this.grant,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      scopes: options.scopes,
      clientMetadataUrl: options.clientMetadataUrl,
      clientName: options.clientName,
      clientAuthentication,
      onUnsaved: options.onUnsaved,
    });
  }

  /**
   * The `Authorization` header value for the next request, refreshing the token first when it
   * expires within {@link ConnectorOAuthOptions.refreshBeforeMs}.
   *
   * @throws {ToolError} `unauthorized` when there are no tokens and none can be had without a
   * person, or the refresh token was refused.
   */
  async authorization(): Promise<string | undefined> {
    let record = await this.#provider.record();
    if (record?.tokens === undefined || this.#expiring(record)) {
      if (record?.tokens === undefined && this.grant === 'authorization_code') {
        // An interactive connector lets the server's 401 say where and for what to log in.
        if (this.#options.interactive !== undefined) return undefined;
        throw authRequired(this.server, 'no tokens stored');
      }
      await this.#authorize({});
      record = await this.#provider.record();
    }
    const tokens = record?.tokens;
    if (tokens === undefined) throw authRequired(this.server, 'no tokens stored');
    return `Bearer ${tokens.access_token}`;
  }

  /**
   * A request carrying `authorization` was answered, not refused: a token this client fetched
   * works, and the next one it is refused is fetched anew at once.
   */
  accepted(authorization: string | undefined): void {
    this.#refusals.accepted(authorization);
  }

  /**
   * Decides what to do about a 401 or 403: refresh or fetch a token (401), or step up to the
   * union of the granted and the challenged scopes (403 `insufficient_scope`). Resolves `true`
   * when the request is worth one more try.
   *
   * A token refused as soon as it was issued (no request got through with it) is not replaced at
   * once: the server refuses its tokens, and a new one is fetched only after a wait that doubles
   * (30 s up to 10 minutes), so a reconnecting connector does not ask the authorization server
   * for a token at each step of its backoff.
   *
   * @throws {ToolError} `unauthorized` when a person must log in; `forbidden` for a step-up a
   * non-interactive connector cannot make, or for a server that refuses a token just issued.
   */
  async refused(refusal: ConnectorAuthRefusal): Promise<boolean> {
    const headers = new Headers();
    if (refusal.wwwAuthenticate !== undefined)
      headers.set('www-authenticate', refusal.wwwAuthenticate);
    const challenge = extractWWWAuthenticateParams(
      new Response(null, { status: refusal.status, headers }),
    );
    const { resourceMetadataUrl } = challenge;
    const interactive = this.#options.interactive;
    if (refusal.status === 401) {
      const held = (await this.#provider.record())?.tokens?.access_token;
      const sent = refusal.authorization;
      // Refused with a token another request has replaced meanwhile: try the new one.
      if (sent !== undefined && held !== undefined && sent !== `Bearer ${held}`) return true;
      const fresh = this.#refusals.check(this.server, sent, challenge, await this.#secrets());
      if (fresh !== undefined) throw fresh;
      const hints = {
        ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
        ...(scopeHint(challenge.scope) === undefined ? {} : { scope: challenge.scope }),
      };
      if (this.grant === 'authorization_code' && interactive !== undefined) {
        await this.#login({ onAuthorizationUrl: interactive, ...hints });
      } else {
        await this.#authorize(hints);
      }
      return true;
    }
    if (challenge.error !== 'insufficient_scope') return false;
    // Scopes a server asks for that are not scope names are no step-up to make: the 403 stands.
    if (challenge.scope !== undefined && scopeHint(challenge.scope) === undefined) return false;
    const record = await this.#provider.record();
    const granted = record?.scopes?.join(' ');
    const union = computeScopeUnion(granted, challenge.scope) ?? '';
    if (!isStrictScopeSuperset(union, granted)) return false;
    const needed = challenge.scope ?? union;
    if (this.grant === 'client_credentials') {
      await this.#authorize({ scope: union, forceReauthorization: true });
      return true;
    }
    if (interactive === undefined) {
      throw new ToolError(
        'forbidden',
        // The scopes come from the server: quoted so that the command, pasted, runs nothing else.
        `MCP server "${this.server}" asks for scope "${needed}": run \`toolplane auth login ${this.server} --scope ${shellWord(union)}\``,
      );
    }
    await this.#login({
      onAuthorizationUrl: interactive,
      scope: union,
      force: true,
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    });
    return true;
  }

  /**
   * Logs in with authorization code + PKCE: listens on a loopback port, hands the authorization
   * URL to `onAuthorizationUrl`, waits for the redirect (its `state` checked, RFC 9207 `iss`
   * checked by the SDK), redeems the code and stores the tokens.
   *
   * @throws {ToolError} `invalid_config` for a non-loopback `redirectUrl` or a client-credentials
   * connector; `unauthorized` for a refused or mismatched redirect; `timeout`; `cancelled`.
   */
  async login(options: LoginOptions): Promise<OAuthStatus> {
    if (this.grant !== 'authorization_code') {
      await this.#authorize({
        forceReauthorization: true,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      return this.status();
    }
    const scope = (options.scopes ?? this.#options.scopes)?.join(' ');
    await this.#login({ ...options, force: true, ...(scope ? { scope } : {}) });
    return this.status();
  }

  /**
   * The code flow: `force` skips a refresh; the hints of a server's challenge go to discovery
   * and scope selection.
   */
  async #login(
    options: Omit<LoginOptions, 'scopes'> & {
      readonly scope?: string;
      readonly resourceMetadataUrl?: URL;
      readonly force?: boolean;
    },
  ): Promise<void> {
    const state = randomBytes(24).toString('base64url');
    const listener = await listenForRedirect({
      state,
      ...(options.redirectUrl === undefined ? {} : { redirectUrl: options.redirectUrl }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const provider = this.#provider;
    const scope = options.scope ?? this.#options.scopes?.join(' ');
    // A client that registered itself for fewer scopes registers again (servers hold clients to
    // the scopes they registered).
    const client: Record<string, unknown> = { ...(await provider.record())?.client };
    const registered = client.scope;
    if (
      this.#options.clientId === undefined &&
      typeof registered === 'string' &&
      isStrictScopeSuperset(scope, registered)
    ) {
      await provider.invalidateCredentials('client');
    }
    try {
      provider.redirectTo = listener.redirectUrl;
      provider.loginState = state;
      provider.onAuthorizationUrl = options.onAuthorizationUrl;
      const signal = options.signal === undefined ? {} : { signal: options.signal };
      const first = await this.#auth({
        ...signal,
        forceReauthorization: options.force === true,
        ...(scope ? { scope } : {}),
        ...(options.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: options.resourceMetadataUrl }),
      });
      if (first === 'REDIRECT') {
        const { code, iss } = await listener.answer;
        await this.#auth({
          ...signal,
          authorizationCode: code,
          ...(iss === undefined ? {} : { iss }),
        });
      }
    } finally {
      provider.redirectTo = undefined;
      provider.loginState = undefined;
      provider.onAuthorizationUrl = undefined;
      await listener.close();
    }
  }

  /** Forgets what was read of the stored credentials; the next request reads them again. */
  reload(): void {
    this.#provider.reload();
  }

  /**
   * Whether the stored tokens differ from those this client last read or wrote: a login (or a
   * logout) made elsewhere, `toolplane auth login` in another process say. One store read.
   */
  async changedElsewhere(): Promise<boolean> {
    const [stored, known] = await Promise.all([
      this.#options.store.load(this.key),
      this.#provider.record(),
    ]);
    return !sameTokens(stored?.tokens, known?.tokens);
  }

  /** Whether the connector holds tokens, until when, for which scopes: never the tokens. */
  async status(): Promise<OAuthStatus> {
    const record = await this.#provider.record();
    return {
      server: this.server,
      resource: this.resource,
      grant: this.grant,
      loggedIn: record?.tokens !== undefined,
      ...(record?.expiresAt === undefined ? {} : { expiresAt: record.expiresAt }),
      scopes: record?.scopes ?? [],
      refreshable: record?.tokens?.refresh_token !== undefined,
    };
  }

  /**
   * Revokes the tokens where the authorization server has a revocation endpoint (RFC 7009), then
   * deletes the stored credentials. Resolves whether the server took the revocation.
   */
  async logout(options: { signal?: AbortSignal } = {}): Promise<{ revoked: boolean }> {
    const record = await this.#provider.record();
    const client = await this.#provider.clientInformation();
    let revoked = false;
    if (record?.tokens !== undefined && client !== undefined) {
      revoked = await revokeTokens({
        tokens: record.tokens,
        client,
        metadata: record.discovery?.authorizationServerMetadata,
        // A revocation endpoint that never answers must not keep the logout from deleting.
        fetch: guardOAuthFetch(this.#options.fetch ?? fetch, {
          server: this.server,
          timeoutMs: this.#options.requestTimeoutMs ?? 30_000,
          maxBytes: MAX_ANSWER_BYTES,
          signal: options.signal,
        }).fetch,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    }
    await this.#provider.invalidateCredentials('all');
    return { revoked };
  }

  /** One `auth()` run at a time: concurrent requests share a refresh. */
  async #authorize(options: AuthRun): Promise<void> {
    this.#running ??= (async () => {
      try {
        if (options.forceReauthorization !== true && (await this.#refreshedElsewhere())) return;
        const result = await this.#auth(options);
        if (result !== 'AUTHORIZED') throw authRequired(this.server, 'no usable tokens');
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /**
   * Whether another client of the same store (another gateway instance on one PostgreSQL, a CLI
   * beside a running gateway) has stored tokens newer than those this one holds, still good:
   * they are used instead of refreshing. Refreshing with the held refresh token would present one
   * the server already rotated away, which it refuses (and may answer by revoking the grant).
   */
  async #refreshedElsewhere(): Promise<boolean> {
    const held = (await this.#provider.record())?.tokens;
    this.#provider.reload();
    const record = await this.#provider.record();
    if (record?.tokens === undefined || sameTokens(record.tokens, held)) return false;
    return !this.#expiring(record);
  }

  /** Whether `record`'s access token expires within {@link ConnectorOAuthOptions.refreshBeforeMs}. */
  #expiring(record: { readonly expiresAt?: number }): boolean {
    const soon = Date.now() + (this.#options.refreshBeforeMs ?? 60_000);
    return record.expiresAt !== undefined && record.expiresAt <= soon;
  }

  async #auth({ signal, ...options }: AuthRun): Promise<'AUTHORIZED' | 'REDIRECT'> {
    const scope = options.scope ?? this.#options.scopes?.join(' ');
    const guard = guardOAuthFetch(this.#options.fetch ?? fetch, {
      server: this.server,
      timeoutMs: this.#options.requestTimeoutMs ?? 30_000,
      maxBytes: MAX_ANSWER_BYTES,
      signal,
    });
    try {
      const before = (await this.#provider.record())?.tokens?.access_token;
      const result = await auth(this.#provider, {
        serverUrl: this.resource,
        ...options,
        ...(scope ? { scope } : {}),
        fetchFn: guard.fetch,
      });
      const after = (await this.#provider.record())?.tokens?.access_token;
      if (after !== undefined && after !== before) this.#refusals.fetched(`Bearer ${after}`);
      return result;
    } catch (error) {
      // What ended the run (a timeout, say), even where the SDK swallowed it and went on.
      if (guard.failure !== undefined) throw guard.failure;
      if (ToolError.isInstance(error)) throw error;
      // The server's words (an error_description) may repeat a secret it was sent: cut out, and
      // the error carrying them is not kept as the cause.
      const said = describe(error, guard.last);
      const clean = withoutSecrets(said, await this.#secrets());
      throw new ToolError(
        'unauthorized',
        `authorization for MCP server "${this.server}" failed (${clean})`,
        clean === said ? { cause: error } : {},
      );
    }
  }

  /** The secrets this client holds: its tokens and client secret. */
  async #secrets(): Promise<string[]> {
    const record = await this.#provider.record();
    return [
      this.#options.clientSecret,
      record?.tokens?.access_token,
      record?.tokens?.refresh_token,
      record?.client?.client_secret,
    ].filter((secret): secret is string => secret !== undefined && secret.length >= 8);
  }
}

function sameTokens(a: StoredOAuthTokens | undefined, b: StoredOAuthTokens | undefined): boolean {
  return a?.access_token === b?.access_token && a?.refresh_token === b?.refresh_token;
}

/** Creates the {@link ConnectorOAuth} of one protected HTTP connector. */
export function createConnectorOAuth(options: ConnectorOAuthOptions): ConnectorOAuth {
  return new ConnectorOAuth(options);
}
