// An authorization server that misbehaves on purpose, as a real HTTP server on 127.0.0.1: each
// test says what its endpoints answer, and the resource server must refuse with a typed 503
// rather than trust, or hold in memory, what it should not.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { discoverAuthorizationServer } from './discovery.js';
import { AuthError } from './errors.js';
import { createResourceServer, type ResourceServer } from './resource-server.js';

const ENDPOINT = 'http://127.0.0.1:8808/mcp';
/** Padding that makes an otherwise valid answer 2 MiB, past the 1 MiB bound. */
const PADDING = 'x'.repeat(2 * 1024 * 1024);

type Handler = (req: IncomingMessage, res: ServerResponse, issuer: string) => void;

interface HostileServer {
  readonly url: string;
  hits(path: string): number;
}

const servers: Server[] = [];

/** Starts a server on a free port of 127.0.0.1 answering each path with `routes[path]` (else 404). */
async function serve(routes: Record<string, Handler>): Promise<HostileServer> {
  const hits = new Map<string, number>();
  let url = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    req.resume();
    const route = routes[path];
    if (route === undefined) res.writeHead(404).end();
    else route(req, res, url);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return { url, hits: (path) => hits.get(path) ?? 0 };
}

afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
});

const json =
  (body: (issuer: string) => unknown): Handler =>
  (_req, res, issuer) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body(issuer)));
  };

const metadata = json((issuer) => ({
  issuer,
  jwks_uri: `${issuer}/jwks`,
  introspection_endpoint: `${issuer}/introspect`,
}));

let privateKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
});

const now = () => Math.floor(Date.now() / 1000);

function signed(issuer: string): Promise<string> {
  return new SignJWT({ sub: 'alice', scope: 'tools:read' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(ENDPOINT)
    .setExpirationTime(now() + 300)
    .sign(privateKey);
}

/** A resource server of `issuer` that introspects opaque tokens. */
function introspecting(issuer: HostileServer): ResourceServer {
  return createResourceServer({
    issuer: issuer.url,
    introspection: { clientId: 'rs', clientSecret: 'secret' },
  });
}

/** Expects `error` to be the 503 of an answer past the 1 MiB bound. */
function expectTooLarge(error: AuthError): void {
  expect([error.status, error.reason]).toEqual([503, 'unavailable']);
  expect(error.message).toContain('larger than 1048576 bytes');
}

async function refusal(rs: ResourceServer, token: string): Promise<AuthError> {
  const error: unknown = await rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AuthError.isAuthError(error)) throw new Error(`expected an AuthError, got ${String(error)}`);
  return error;
}

describe('an authorization server whose answers are enormous', () => {
  it('refuses a metadata document past 1 MiB instead of reading it whole', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': json((url) => ({ issuer: url, PADDING })),
    });
    const error: unknown = await discoverAuthorizationServer(issuer.url).catch((e: unknown) => e);
    expect(AuthError.isAuthError(error) && [error.reason, error.code]).toEqual([
      'unavailable',
      'connector_unavailable',
    ]);
    expect((error as Error).message).toContain('larger than 1048576 bytes');
  });

  it('refuses an introspection answer whose content-length is past 1 MiB', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/introspect': (_req, res, url) => {
        const body = JSON.stringify({ active: true, iss: url, aud: ENDPOINT, sub: 'a', PADDING });
        res
          .writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          })
          .end(body);
      },
    });
    const rs = introspecting(issuer);
    const error = await refusal(rs, 'an-opaque-token');
    expectTooLarge(error);
  });

  it('refuses a key set past 1 MiB (503), though it holds the right key', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/jwks': json(() => ({ keys: [publicJwk], PADDING })),
    });
    const rs = createResourceServer({ issuer: issuer.url });
    const error = await refusal(rs, await signed(issuer.url));
    expectTooLarge(error);
  });

  it('refuses an introspection answer past 1 MiB (503), though it says active', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/introspect': json((url) => ({ active: true, iss: url, aud: ENDPOINT, sub: 'a', PADDING })),
    });
    const rs = introspecting(issuer);
    const error = await refusal(rs, 'an-opaque-token');
    expectTooLarge(error);
  });
});

describe('an authorization server whose discovery misbehaves', () => {
  it('tries OpenID discovery when the RFC 8414 URL answers an HTML page with 200', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>app</title>');
      },
      '/.well-known/openid-configuration': metadata,
      '/jwks': json(() => ({ keys: [publicJwk] })),
    });
    const rs = createResourceServer({ issuer: issuer.url });
    await expect(
      rs.authenticate(`Bearer ${await signed(issuer.url)}`, { endpoint: ENDPOINT }),
    ).resolves.toMatchObject({ subject: 'alice' });
  });

  it('names each URL that failed (503), and verifies once the issuer serves its metadata', async () => {
    let up = false;
    const page: Handler = (req, res, url) => {
      if (up) metadata(req, res, url);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>starting</p>');
    };
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': page,
      '/.well-known/openid-configuration': page,
      '/jwks': json(() => ({ keys: [publicJwk] })),
    });
    const rs = createResourceServer({ issuer: issuer.url });
    const token = await signed(issuer.url);
    const error = await refusal(rs, token);
    expect([error.status, error.reason]).toEqual([503, 'unavailable']);
    expect(error.message).toContain(
      `${issuer.url}/.well-known/oauth-authorization-server: not JSON`,
    );
    expect(error.message).toContain(`${issuer.url}/.well-known/openid-configuration: not JSON`);
    up = true;
    // The failure is the answer for 5 s; then the metadata is asked again.
    await expect(refusal(rs, token)).resolves.toMatchObject({ status: 503 });
    const later = Date.now() + 5_000;
    vi.spyOn(Date, 'now').mockImplementation(() => later);
    await expect(rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT })).resolves.toMatchObject(
      { subject: 'alice' },
    );
  });

  it('asks a failing issuer once per backoff, however many tokens come (503 each)', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': (_req, res) => {
        res.writeHead(500).end();
      },
    });
    const rs = createResourceServer({ issuer: issuer.url });
    const token = await signed(issuer.url);
    const asked = (): number =>
      issuer.hits('/.well-known/oauth-authorization-server') +
      issuer.hits('/.well-known/openid-configuration');
    await expect(rs.discover()).rejects.toMatchObject({ status: 503 });
    const once = asked();
    expect(once).toBeGreaterThan(0);
    const refusals = await Promise.all(Array.from({ length: 20 }, () => refusal(rs, token)));
    expect(refusals.map((error) => error.status)).toEqual(Array(20).fill(503));
    expect(asked()).toBe(once);
    // Each refusal says when the issuer will be asked again: what is left of the backoff.
    expect(refusals.every((error) => error.retryAfterSec !== undefined)).toBe(true);
    expect(Math.max(...refusals.map((error) => error.retryAfterSec ?? 0))).toBeLessThanOrEqual(5);
    const failedBy = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => failedBy + 3_500);
    expect((await refusal(rs, token)).retryAfterSec).toBeLessThanOrEqual(2);
    const later = failedBy + 5_000;
    vi.spyOn(Date, 'now').mockImplementation(() => later);
    await refusal(rs, token);
    expect(asked()).toBe(2 * once);
  });

  it('fetches its metadata and key set with the fetch it is given', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/jwks': json(() => ({ keys: [publicJwk] })),
    });
    const fetched: string[] = [];
    const rs = createResourceServer({
      issuer: issuer.url,
      fetch: (input, init) => {
        fetched.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
        return fetch(input, init);
      },
    });
    await expect(
      rs.authenticate(`Bearer ${await signed(issuer.url)}`, { endpoint: ENDPOINT }),
    ).resolves.toMatchObject({ subject: 'alice' });
    expect(fetched).toEqual(['/.well-known/oauth-authorization-server', '/jwks']);
  });
});

describe('an introspection endpoint that fails', () => {
  it('is asked once per backoff, however many tokens come (503 each, saying when to retry)', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/introspect': (_req, res) => {
        res.writeHead(500).end();
      },
    });
    const rs = introspecting(issuer);
    const refusals = await Promise.all(
      Array.from({ length: 10 }, (_, at) => refusal(rs, `made-up-${String(at)}`)),
    );
    const first = await refusal(rs, 'one-more');
    for (const error of [...refusals, first]) {
      expect([error.status, error.reason]).toEqual([503, 'unavailable']);
      expect(error.message).toContain('answered HTTP 500');
    }
    // The ten were asked at once, before any answer came back; the one after them was not asked.
    const asked = issuer.hits('/introspect');
    expect(asked).toBeLessThanOrEqual(10);
    expect(first.retryAfterSec).toBeGreaterThanOrEqual(1);
    expect(first.retryAfterSec).toBeLessThanOrEqual(5);
    await refusal(rs, 'and-another');
    expect(issuer.hits('/introspect')).toBe(asked);
    const later = Date.now() + 5_000;
    vi.spyOn(Date, 'now').mockImplementation(() => later);
    await refusal(rs, 'after-the-backoff');
    expect(issuer.hits('/introspect')).toBe(asked + 1);
  });
});

describe('an introspection endpoint whose answers are malformed', () => {
  it('refuses (503) an active answer whose exp, nbf, iss or aud is not of its type', async () => {
    const expired = now() - 3600;
    const answers: Record<string, Record<string, unknown>> = {
      'exp-as-text': { exp: String(expired) },
      'nbf-as-text': { nbf: 'soon' },
      'iss-as-number': { iss: 7 },
      'aud-as-number': { aud: 5 },
      'aud-as-object': { aud: { uri: ENDPOINT } },
      'aud-with-a-number': { aud: [5, ENDPOINT] },
    };
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/introspect': (req, res) => {
        let form = '';
        req.on('data', (chunk: Buffer) => (form += chunk.toString()));
        req.on('end', () => {
          const token = new URLSearchParams(form).get('token') ?? '';
          const answer = { active: true, sub: 'alice', aud: ENDPOINT, ...answers[token] };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        });
      },
    });
    const rs = introspecting(issuer);
    for (const [token, answer] of Object.entries(answers)) {
      const error = await refusal(rs, token);
      const member = Object.keys(answer)[0] ?? '';
      expect([token, error.status, error.message]).toEqual([
        token,
        503,
        `the introspection endpoint of ${issuer.url} answered a malformed "${member}" member`,
      ]);
    }
  });
});

describe('an authorization server that redirects', () => {
  it('does not follow its introspection endpoint to another host, nor send the token there', async () => {
    const elsewhere = await serve({
      '/introspect': json(() => ({ active: true, aud: ENDPOINT, sub: 'mallory' })),
    });
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/introspect': (_req, res) => {
        res.writeHead(307, { location: `${elsewhere.url}/introspect` }).end();
      },
    });
    const rs = introspecting(issuer);
    const error = await refusal(rs, 'an-opaque-token');
    expect([error.status, error.reason]).toEqual([503, 'unavailable']);
    expect(error.message).toContain('redirect');
    // Settled: the redirect would have been followed before the answer came.
    expect(elsewhere.hits('/introspect')).toBe(0);
  });
});

describe('an authorization server whose key set fails', () => {
  it('asks a failing key set once per backoff, however many tokens come (503 each)', async () => {
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/jwks': (_req, res) => {
        res.writeHead(500).end();
      },
    });
    const rs = createResourceServer({ issuer: issuer.url });
    const token = await signed(issuer.url);
    for (let i = 0; i < 5; i++) {
      const error = await refusal(rs, token);
      expect([error.status, error.message]).toEqual([
        503,
        `the key set at ${issuer.url}/jwks answered HTTP 500`,
      ]);
      // When the key set will be asked again: what is left of the 5 s.
      expect(error.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect(error.retryAfterSec).toBeLessThanOrEqual(5);
    }
    expect(issuer.hits('/jwks')).toBe(1);
  });

  it('refuses an HTML key set (503), and verifies once the issuer serves its keys again', async () => {
    let broken = true;
    const issuer = await serve({
      '/.well-known/oauth-authorization-server': metadata,
      '/jwks': (req, res, url) => {
        if (!broken) json(() => ({ keys: [publicJwk] }))(req, res, url);
        else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      },
    });
    const rs = createResourceServer({ issuer: issuer.url, jwks: { cooldownDuration: 0 } });
    const token = await signed(issuer.url);
    const error = await refusal(rs, token);
    expect([error.status, error.message]).toEqual([
      503,
      `the key set at ${issuer.url}/jwks is not JSON`,
    ]);
    broken = false;
    await expect(rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT })).resolves.toMatchObject(
      { subject: 'alice', scopes: ['tools:read'] },
    );
  });
});
