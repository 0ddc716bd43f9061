// Test helper: a real OAuth 2.1 authorization server (`oidc-provider`) on 127.0.0.1, with the
// authorization code + PKCE flow (a headless interaction: every login is "alice", every consent
// granted), client credentials, refresh tokens, revocation, dynamic client registration and
// resource indicators (JWT access tokens whose `aud` is the MCP server), plus a "browser" that
// drives the code flow without a person.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK } from 'jose';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** A client registered up front. */
export interface TestOAuthClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Options of {@link startOAuthServer}. */
export interface OAuthServerOptions {
  /** The MCP servers (resource indicators) tokens may be minted for; read live, add to it. */
  readonly resources: string[];
  /** Access token lifetime, seconds (default 300). */
  readonly accessTokenTTL?: number;
}

/** A running {@link startOAuthServer}. */
export interface TestOAuthServer {
  readonly issuer: string;
  /** A confidential client allowed the client credentials grant. */
  readonly machine: TestOAuthClient;
  /** The grant types of every token the server issued, in order. */
  readonly grants: readonly string[];
  /** Revokes a token (RFC 7009) as its client would. */
  revoke(token: string, client?: TestOAuthClient): Promise<void>;
  close(): Promise<void>;
}

const SCOPES = ['openid', 'offline_access', 'tools:read', 'tools:write'];

/** Starts the authorization server on a free port of 127.0.0.1. */
export async function startOAuthServer(options: OAuthServerOptions): Promise<TestOAuthServer> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const machine = {
    clientId: `machine-${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
  const grants: string[] = [];
  const at: { provider?: Provider } = {};
  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://as');
    const provider = at.provider;
    if (provider === undefined) {
      res.writeHead(503).end();
      return;
    }
    if (url.pathname.startsWith('/interaction/')) {
      interact(provider, req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${String((http.address() as AddressInfo).port)}`;
  const ttl = options.accessTokenTTL ?? 300;
  const configuration: Configuration = {
    clients: [
      {
        client_id: machine.clientId,
        client_secret: machine.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    scopes: SCOPES,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: ttl, ClientCredentials: ttl, RefreshToken: 3_600, Grant: 3_600 },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resources[0] ?? '',
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!options.resources.includes(resource)) throw new errors.InvalidTarget();
          return {
            scope: 'tools:read tools:write',
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
  };
  const provider = new Provider(issuer, configuration);
  at.provider = provider;
  provider.on('server_error', () => undefined);
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const grant = ctx.oidc.params?.grant_type;
    grants.push(typeof grant === 'string' ? grant : 'unknown');
  });
  return {
    issuer,
    machine,
    grants,
    async revoke(token, client) {
      const body = new URLSearchParams({ token });
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
      };
      if (client === undefined) body.set('client_id', 'unknown');
      else {
        const pair = `${client.clientId}:${client.clientSecret}`;
        headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
      }
      const answer = await fetch(`${issuer}/token/revocation`, { method: 'POST', headers, body });
      if (!answer.ok) throw new Error(`revocation refused: ${String(answer.status)}`);
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

/** The headless interaction: log in "alice", grant what the client asked for. */
async function interact(
  provider: Provider,
  req: Parameters<Provider['interactionDetails']>[0],
  res: Parameters<Provider['interactionDetails']>[1],
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: 'alice' } },
      {
        mergeWithLastSubmission: false,
      },
    );
    return;
  }
  const grant =
    details.grantId === undefined
      ? new provider.Grant({ accountId: 'alice', clientId: String(params.client_id) })
      : await provider.Grant.find(details.grantId);
  if (grant === undefined) throw new Error('grant not found');
  const missing = prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId } },
    {
      mergeWithLastSubmission: true,
    },
  );
}

/**
 * Plays the browser: opens `authorizationUrl` (after `tamper`, to play an attacker), follows the
 * authorization server's redirects with its cookies, and delivers the final redirect to the
 * loopback listener. Resolves the listener's HTTP status.
 */
export async function browse(
  authorizationUrl: URL,
  tamper: (url: URL) => URL = (url) => url,
): Promise<number> {
  const cookies = new Map<string, string>();
  let url = tamper(new URL(authorizationUrl));
  const issuerOrigin = url.origin;
  for (let hop = 0; hop < 20; hop++) {
    const headers: Record<string, string> = {};
    if (url.origin === issuerOrigin && cookies.size > 0) {
      headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    const answer = await fetch(url, { redirect: 'manual', headers });
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair !== undefined && at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    await answer.arrayBuffer();
    const location = answer.headers.get('location');
    if (url.origin !== issuerOrigin || location === null) return answer.status;
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
