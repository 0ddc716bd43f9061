import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT, UnsecuredJWT, type JWK, type JWTPayload } from 'jose';
import Provider, { errors, type Configuration } from 'oidc-provider';

/** A client registered with a {@link TestAuthorizationServer}. */
export interface TestClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Options of {@link startAuthorizationServer}. */
export interface TestAuthorizationServerOptions {
  /** Resource indicators (RFC 8707) the server mints tokens for, with the scopes each allows. */
  readonly resources: Readonly<Record<string, readonly string[]>>;
  /** Resources whose tokens are opaque (for RFC 7662 introspection) rather than JWTs. */
  readonly opaque?: readonly string[];
  /** Access token lifetime in seconds (default 300). */
  readonly accessTokenTTL?: number;
  /** How many clients to register (default 1). */
  readonly clients?: number;
}

/** A real OAuth 2.1 authorization server (`oidc-provider`) on 127.0.0.1, for tests. */
export interface TestAuthorizationServer {
  /** The issuer, e.g. `http://127.0.0.1:49152`. */
  readonly issuer: string;
  readonly clients: readonly TestClient[];
  /** How many requests each path has had (`/jwks`, `/.well-known/…`, `/token`, …). */
  hits(path: string): number;
  /** Stops answering: every request gets 503 from now on (the server is "down"). */
  goDown(): void;
  /** The kid of the key that signs tokens now. */
  readonly currentKid: string;
  /**
   * Mints an access token through the token endpoint: client credentials grant, with `resource`
   * (RFC 8707) and `scope`. Rejects with the server's `error` when it refuses.
   */
  token(options: {
    resource: string;
    scope: string;
    client?: TestClient;
  }): Promise<{ accessToken: string; expiresIn: number }>;
  /**
   * Signs `claims` with the server's current private key, as the server would: for the cases no
   * well-behaved server mints (expired, not yet valid, another issuer).
   */
  sign(claims: JWTPayload, header?: { alg?: string; typ?: string; kid?: string }): Promise<string>;
  /**
   * A token no honest server mints, for refusal tests: `none` (an unsecured JWT), `hs256` (HMAC
   * with the published public key as the secret), `foreign-key` (a key of its own under the
   * server's current `kid`).
   */
  forge(claims: JWTPayload, kind: 'none' | 'hs256' | 'foreign-key'): Promise<string>;
  /**
   * Replaces the signing key (the old one is no longer published): tokens minted from now on carry
   * the new `kid`, and tokens signed with the old key no longer verify.
   */
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly jwk: JWK;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, jwk };
}

function newClient(): TestClient {
  return {
    clientId: `client-${randomBytes(6).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
}

/**
 * Starts `oidc-provider` on 127.0.0.1 with the client credentials grant and resource indicators,
 * so it issues JWT access tokens (ES256) whose `aud` is the requested resource. The HTTP server
 * in front of it stays while {@link TestAuthorizationServer.rotateKeys} swaps the provider, so
 * the issuer URL does not change.
 */
export async function startAuthorizationServer(
  options: TestAuthorizationServerOptions,
): Promise<TestAuthorizationServer> {
  const clients = Array.from({ length: options.clients ?? 1 }, newClient);
  let key = await newKey();
  let provider: Provider | undefined;
  const hits = new Map<string, number>();
  const http: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://as').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (provider === undefined) {
      res.writeHead(503).end();
      return;
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${String((http.address() as AddressInfo).port)}`;

  const build = (signing: SigningKey): Provider => {
    const configuration: Configuration = {
      clients: clients.map((c) => ({
        client_id: c.clientId,
        client_secret: c.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      })),
      jwks: { keys: [signing.jwk] },
      ttl: { ClientCredentials: options.accessTokenTTL ?? 300 },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => false,
          getResourceServerInfo: (_ctx, resource) => {
            const scopes = options.resources[resource];
            if (scopes === undefined) throw new errors.InvalidTarget();
            return {
              scope: scopes.join(' '),
              audience: resource,
              accessTokenTTL: options.accessTokenTTL ?? 300,
              ...(options.opaque?.includes(resource) === true
                ? { accessTokenFormat: 'opaque' as const }
                : { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'ES256' as const } } }),
            };
          },
        },
      },
    };
    const created = new Provider(issuer, configuration);
    // The provider logs failures to the console itself; tests read what the gateway says.
    created.on('server_error', () => undefined);
    return created;
  };
  provider = build(key);

  const tokenEndpoint = `${issuer}/token`;
  return {
    issuer,
    clients,
    hits: (path) => hits.get(path) ?? 0,
    goDown() {
      provider = undefined;
    },
    get currentKid() {
      return key.kid;
    },
    async token({ resource, scope, client = clients[0] }) {
      if (client === undefined) throw new Error('no client registered');
      const basic = Buffer.from(
        `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
      ).toString('base64');
      const response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (!response.ok || typeof body.access_token !== 'string') {
        throw new Error(
          `token endpoint refused: ${String(body.error)} (${String(body.error_description)})`,
        );
      }
      return { accessToken: body.access_token, expiresIn: Number(body.expires_in) };
    },
    async sign(claims, header = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({
          alg: header.alg ?? 'ES256',
          typ: header.typ ?? 'at+jwt',
          kid: header.kid ?? key.kid,
        })
        .sign(key.privateKey);
    },
    async forge(claims, kind) {
      if (kind === 'none') return new UnsecuredJWT(claims).encode();
      if (kind === 'hs256') {
        const { d: _, ...publicJwk } = key.jwk;
        return new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: key.kid })
          .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
      }
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
        .sign(privateKey);
    },
    async rotateKeys() {
      key = await newKey();
      provider = build(key);
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => {
          resolve();
        });
        http.closeAllConnections();
      }),
  };
}
