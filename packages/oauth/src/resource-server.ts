import type { JWTPayload } from 'jose';
import {
  canonicalResource,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import { discoverAuthorizationServer, type AuthorizationServerMetadata } from './discovery.js';
import { AuthError } from './errors.js';
import { FailureBackoff } from './failure-backoff.js';
import {
  checkIntrospectionOptions,
  createIntrospector,
  type IntrospectionOptions,
} from './introspection.js';
import {
  checkJwksOptions,
  createJwtVerifier,
  looksLikeJwt,
  type JwtVerifierOptions,
} from './jwt.js';
import {
  bearerChallenge,
  metadataPath,
  metadataUrl,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadata,
  type ProtectedResourceMetadata,
} from './metadata.js';
import {
  createScopePolicy,
  type ScopedPrompt,
  type ScopedResource,
  type ScopeGrant,
  type ScopedTool,
  type ScopePolicy,
} from './scope-policy.js';

/** Options of {@link createResourceServer}. */
export interface ResourceServerOptions {
  /** The authorization server's issuer URL; its metadata (and JWKS) is found by discovery. */
  readonly issuer: string;
  /**
   * The audience every token must name (RFC 8707): the resource's canonical URI. Default: the
   * endpoint the gateway serves, e.g. `http://127.0.0.1:8808/mcp`.
   */
  readonly audience?: string;
  /** Scopes and what each grants; see {@link createScopePolicy}. */
  readonly scopes?: Readonly<Record<string, ScopeGrant>>;
  /**
   * The scopes a 401 challenge suggests (`scope="…"`, RFC 6750 §3, the MCP authorization spec's
   * scope selection). Default: every mapped scope, as `scopes_supported` lists them; `[]` sends
   * no hint.
   */
  readonly challengeScopes?: readonly string[];
  /** Accept opaque tokens through RFC 7662 introspection (JWTs are still verified locally). */
  readonly introspection?: IntrospectionOptions;
  /** Accepted JWT `alg` values (default: asymmetric ones; `none` and `HS*` are never accepted). */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp` and `nbf`, in seconds (default 30). */
  readonly clockToleranceSec?: number;
  /** Require `typ: at+jwt` (RFC 9068) on JWT access tokens (default `false`). */
  readonly requireAccessTokenType?: boolean;
  /** How the key set is cached (jose's `cacheMaxAge`, `cooldownDuration`, `timeoutDuration`). */
  readonly jwks?: JwtVerifierOptions['jwks'];
  /** Shown to clients in the metadata (`resource_name`). */
  readonly resourceName?: string;
  /** A page about the resource (`resource_documentation`). */
  readonly resourceDocumentation?: string;
  /** The `fetch` for discovery, the key set and introspection (default the global one). */
  readonly fetch?: typeof fetch;
}

/**
 * Who made a request, as its access token says. Holds no part of the token itself, so it may be
 * logged, traced and handed to tools.
 */
export interface Caller {
  /** The token's subject (`sub`): a user, or the client itself for client credentials. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId: string | undefined;
  /** The scopes granted (`scope`, or an `scp` list). */
  readonly scopes: readonly string[];
  readonly issuer: string;
  /** When the token expires, in epoch seconds. */
  readonly expiresAt: number | undefined;
}

/** Options of {@link ResourceServer.authenticate}. */
export interface AuthenticateOptions {
  /** The endpoint the request came to; its canonical URI is the default audience. */
  readonly endpoint: string | URL;
  readonly signal?: AbortSignal;
}

/** An OAuth 2.1 resource server; see {@link createResourceServer}. */
export interface ResourceServer {
  readonly issuer: string;
  readonly policy: ScopePolicy;
  /** The resource URI tokens must be bound to, for requests to `endpoint`. */
  resource(endpoint: string | URL): string;
  /** The RFC 9728 metadata for `endpoint`. */
  metadata(endpoint: string | URL): ProtectedResourceMetadata;
  /**
   * Whether `pathname` is where this resource's metadata is served: the bare well-known path,
   * or the path-suffixed form for `endpoint` (or the configured audience).
   */
  isMetadataPath(pathname: string, endpoint: string | URL): boolean;
  /**
   * Verifies the `Authorization` header's bearer token: a JWT against the issuer's keys, an
   * opaque token by introspection when configured.
   *
   * @throws {AuthError} `missing_token` (no bearer token), `invalid_request` (a malformed
   * header), `invalid_token` (bad signature, issuer, audience, expired, not yet valid, …),
   * `unavailable` (the authorization server could not be asked).
   */
  authenticate(authorization: string | undefined, options: AuthenticateOptions): Promise<Caller>;
  /** Whether `caller` may see and call `tool`. */
  allows(caller: Caller, tool: ScopedTool): boolean;
  /**
   * @throws {AuthError} `insufficient_scope`, naming the scopes that would be enough, when
   * `caller` may not call `tool`.
   */
  requireTool(caller: Caller, tool: ScopedTool): void;
  /** Whether `caller` may see and get `prompt`. */
  allowsPrompt(caller: Caller, prompt: ScopedPrompt): boolean;
  /** @throws {AuthError} `insufficient_scope` when `caller` may not get `prompt`. */
  requirePrompt(caller: Caller, prompt: ScopedPrompt): void;
  /** Whether `caller` may see, read and subscribe to `resource` (or a resource template). */
  allowsResource(caller: Caller, resource: ScopedResource): boolean;
  /** @throws {AuthError} `insufficient_scope` when `caller` may not read `resource`. */
  requireResource(caller: Caller, resource: ScopedResource): void;
  /** The `WWW-Authenticate` value that goes with a refusal (`error` undefined: no token sent). */
  challenge(error: AuthError | undefined, endpoint: string | URL): string;
  /**
   * Fetches the issuer's metadata now, so a wrong issuer fails at start rather than per call. A
   * failure stays the answer for 5 s (to every request too) before the metadata is asked again.
   */
  discover(options?: { signal?: AbortSignal }): Promise<AuthorizationServerMetadata>;
}

/** How long a failed discovery is the answer to every request before it is asked again. */
const FAILED_DISCOVERY_BACKOFF_MS = 5_000;

const RESOURCE_SERVER_KEYS = optionKeys<ResourceServerOptions>({
  issuer: true,
  audience: true,
  scopes: true,
  challengeScopes: true,
  introspection: true,
  algorithms: true,
  clockToleranceSec: true,
  requireAccessTokenType: true,
  jwks: true,
  resourceName: true,
  resourceDocumentation: true,
  fetch: true,
});

/**
 * An OAuth 2.1 resource server for an MCP endpoint (MCP authorization, 2025-11-25): serves RFC
 * 9728 metadata, verifies bearer tokens (JWT access tokens against the issuer's JWKS found by
 * RFC 8414 / OpenID discovery; opaque ones through RFC 7662 introspection when configured), binds
 * them to the resource's canonical URI (RFC 8707), and decides with the {@link ScopePolicy} which
 * tools a caller may see and call. Framework-free: the gateway calls it per request.
 *
 * @throws {ToolError} `invalid_config` for a key it does not take (here, in `jwks` or in
 * `introspection`), an issuer or audience that is not an http(s) URL, an unsafe algorithm, a
 * negative or non-finite `clockToleranceSec`, or a bad scope map.
 */
export function createResourceServer(options: ResourceServerOptions): ResourceServer {
  // Before anything: a misspelt `scopes` would leave a policy that restricts nothing.
  refuseUnknownOptions(options, RESOURCE_SERVER_KEYS, 'auth', { code: 'invalid_config' });
  checkJwksOptions(options.jwks, 'auth.jwks');
  if (options.introspection !== undefined) {
    checkIntrospectionOptions(options.introspection, 'auth.introspection');
  }
  const issuer = checkIssuer(options.issuer);
  const audience = options.audience === undefined ? undefined : canonicalResource(options.audience);
  const policy = createScopePolicy(options.scopes);
  // The metadata, asked once. After a failure the first request at least
  // FAILED_DISCOVERY_BACKOFF_MS later asks again (the authorization server may just be
  // starting); each request meanwhile fails at once with that failure, so a flood of made-up
  // tokens costs the issuer nothing.
  let discovery: Promise<AuthorizationServerMetadata> | undefined;
  const failures = new FailureBackoff(FAILED_DISCOVERY_BACKOFF_MS);
  const discover = async ({ signal }: { signal?: AbortSignal } = {}) => {
    failures.throwIfHeld();
    const asked = (discovery ??= discoverAuthorizationServer(issuer, {
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(signal === undefined ? {} : { signal }),
    }).catch((error: unknown) => {
      discovery = undefined;
      // A start that was stopped got no answer from the server: the next request asks.
      throw failures.fail(error, signal?.aborted !== true);
    }));
    return asked;
  };
  const fromMetadata = async (member: 'jwks_uri' | 'introspection_endpoint'): Promise<string> => {
    const value = (await discover())[member];
    if (typeof value !== 'string') {
      throw new AuthError('unavailable', `the metadata of ${issuer} names no ${member}`);
    }
    return value;
  };
  const verifyJwt = createJwtVerifier({
    issuer,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    jwksUri: () => fromMetadata('jwks_uri'),
    ...(options.algorithms === undefined ? {} : { algorithms: options.algorithms }),
    ...(options.clockToleranceSec === undefined
      ? {}
      : { clockToleranceSec: options.clockToleranceSec }),
    ...(options.jwks === undefined ? {} : { jwks: options.jwks }),
    ...(options.requireAccessTokenType === undefined
      ? {}
      : { requireAccessTokenType: options.requireAccessTokenType }),
  });
  const introspection = options.introspection;
  const introspect =
    introspection === undefined
      ? undefined
      : createIntrospector({
          ...introspection,
          issuer,
          endpoint: () =>
            introspection.endpoint === undefined
              ? fromMetadata('introspection_endpoint')
              : Promise.resolve(introspection.endpoint),
          ...(options.clockToleranceSec === undefined
            ? {}
            : { clockToleranceSec: options.clockToleranceSec }),
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        });
  const resource = (endpoint: string | URL) => audience ?? canonicalResource(endpoint);
  const hintScopes = checkScopes(options.challengeScopes) ?? policy.scopes;

  return {
    issuer,
    policy,
    resource,
    metadata: (endpoint) =>
      protectedResourceMetadata({
        resource: resource(endpoint),
        authorizationServers: [issuer],
        scopesSupported: policy.scopes,
        ...(options.resourceName === undefined ? {} : { resourceName: options.resourceName }),
        ...(options.resourceDocumentation === undefined
          ? {}
          : { resourceDocumentation: options.resourceDocumentation }),
      }),
    isMetadataPath: (pathname, endpoint) =>
      pathname === PROTECTED_RESOURCE_WELL_KNOWN ||
      pathname === metadataPath(endpoint) ||
      pathname === metadataPath(resource(endpoint)),
    async authenticate(authorization, { endpoint, signal }) {
      const token = bearerToken(authorization);
      const audienceNow = resource(endpoint);
      if (looksLikeJwt(token) || introspect === undefined) {
        return fromClaims(await verifyJwt(token, audienceNow), issuer);
      }
      const answer = await introspect(token, audienceNow, signal === undefined ? {} : { signal });
      return fromClaims(answer, issuer);
    },
    allows: (caller, tool) => policy.allows(caller.scopes, tool),
    requireTool(caller, tool) {
      if (!policy.allows(caller.scopes, tool)) {
        throw insufficient(`tool "${tool.namespace}:${tool.name}"`, policy.scopesFor(tool));
      }
    },
    allowsPrompt: (caller, prompt) => policy.allowsPrompt(caller.scopes, prompt),
    requirePrompt(caller, prompt) {
      if (!policy.allowsPrompt(caller.scopes, prompt)) {
        throw insufficient(
          `prompt "${prompt.namespace}:${prompt.name}"`,
          policy.scopesForPrompt(prompt),
        );
      }
    },
    allowsResource: (caller, resource) => policy.allowsResource(caller.scopes, resource),
    requireResource(caller, resource) {
      if (!policy.allowsResource(caller.scopes, resource)) {
        throw insufficient(
          `resource ${JSON.stringify(shorten(resource.uri))}`,
          policy.scopesForResource(resource),
        );
      }
    },
    challenge(error, endpoint) {
      const resourceMetadata = metadataUrl(resource(endpoint));
      if (error?.reason === 'unavailable') return bearerChallenge({ resourceMetadata });
      // A 401 suggests the scopes to ask for (the client has none that work yet); a 403 names
      // those that would reach what was refused.
      const scopes = error?.reason === 'insufficient_scope' ? error.scopes : hintScopes;
      if (error === undefined || error.reason === 'missing_token') {
        return bearerChallenge({ resourceMetadata, scopes });
      }
      return bearerChallenge({
        resourceMetadata,
        error: error.reason,
        description: error.message,
        scopes,
      });
    },
    discover,
  };
}

/** The refusal of something `caller`'s scopes do not reach; `what` names it for the message. */
function insufficient(what: string, scopes: readonly string[]): AuthError {
  return new AuthError(
    'insufficient_scope',
    scopes.length === 0
      ? `no scope grants ${what}`
      : `${what} needs scope ${scopes.map((s) => `"${s}"`).join(' or ')}`,
    { scopes },
  );
}

/** A client-chosen URI, cut to a length a message (and a WWW-Authenticate header) can carry. */
function shorten(uri: string): string {
  return uri.length <= 200 ? uri : `${uri.slice(0, 200)}…`;
}

function checkScopes(scopes: readonly string[] | undefined): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  for (const scope of scopes as readonly unknown[]) {
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
      throw new ToolError(
        'invalid_config',
        `auth.challengeScopes: ${JSON.stringify(scope)} is not a valid scope name`,
      );
    }
  }
  return [...scopes];
}

function checkIssuer(issuer: string): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch (error) {
    throw new ToolError('invalid_config', `auth.issuer ${JSON.stringify(issuer)} is not a URL`, {
      cause: error,
    });
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.hash !== '' ||
    url.search !== ''
  ) {
    throw new ToolError(
      'invalid_config',
      `auth.issuer ${JSON.stringify(issuer)} must be an http(s) URL without query or fragment`,
    );
  }
  return issuer;
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1). */
function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization === '') {
    throw new AuthError('missing_token', 'a bearer token is required');
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (match?.[1] !== undefined) return match[1];
  // Another scheme is, to RFC 6750, a client unaware that a bearer token is needed.
  if (!/^Bearer(\s|$)/i.test(authorization)) {
    throw new AuthError('missing_token', 'a bearer token is required');
  }
  throw new AuthError(
    'invalid_request',
    'the Authorization header is not a well-formed bearer token',
  );
}

function fromClaims(claims: JWTPayload | Record<string, unknown>, issuer: string): Caller {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const scp = claims.scp;
  const scopes =
    typeof claims.scope === 'string'
      ? claims.scope.split(' ').filter((s) => s !== '')
      : Array.isArray(scp)
        ? scp.filter((s): s is string => typeof s === 'string')
        : typeof scp === 'string'
          ? scp.split(' ').filter((s) => s !== '')
          : [];
  return Object.freeze({
    subject: text(claims.sub),
    clientId: text(claims.client_id) ?? text(claims.azp),
    scopes: Object.freeze(scopes),
    issuer,
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
  });
}
