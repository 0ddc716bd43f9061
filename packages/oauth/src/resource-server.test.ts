import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from './errors.js';
import { createIntrospector } from './introspection.js';
import { createResourceServer, type ResourceServer } from './resource-server.js';
import { startAuthorizationServer, type TestAuthorizationServer } from './testing/index.js';

const ENDPOINT = 'http://127.0.0.1:8808/mcp';
const OTHER = 'http://127.0.0.1:9999/mcp';
const OPAQUE = 'http://127.0.0.1:7777/mcp';

let as: TestAuthorizationServer;
let rs: ResourceServer;

beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: {
      [ENDPOINT]: ['tools:read', 'tools:admin'],
      [OTHER]: ['tools:read'],
      [OPAQUE]: ['tools:read'],
    },
    opaque: [OPAQUE],
  });
  rs = createResourceServer({
    issuer: as.issuer,
    scopes: { 'tools:read': { tags: ['read'] }, 'tools:admin': { namespaces: ['*'] } },
    jwks: { cooldownDuration: 0 },
  });
});

afterAll(async () => {
  await as.close();
});

/** The refusal `authenticate` rejects with (fails the test if it resolves). */
async function refusal(
  authorization: string | undefined,
  { endpoint = ENDPOINT, server = rs }: { endpoint?: string; server?: ResourceServer } = {},
): Promise<AuthError> {
  const error: unknown = await server.authenticate(authorization, { endpoint }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AuthError.isAuthError(error)) throw new Error(`expected an AuthError, got ${String(error)}`);
  return error;
}

const now = () => Math.floor(Date.now() / 1000);

function claims(overrides: Record<string, unknown> = {}) {
  return {
    iss: as.issuer,
    aud: ENDPOINT,
    sub: 'alice',
    client_id: 'client-a',
    scope: 'tools:read',
    iat: now(),
    exp: now() + 300,
    ...overrides,
  };
}

describe('createResourceServer: JWT access tokens from a real authorization server', () => {
  it('accepts a token the server minted for this resource, with subject, client and scopes', async () => {
    const { accessToken } = await as.token({ resource: ENDPOINT, scope: 'tools:read' });
    const caller = await rs.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT });
    expect(caller.scopes).toEqual(['tools:read']);
    expect(caller.clientId).toBe(as.clients[0]?.clientId);
    expect(caller.subject).toBe(as.clients[0]?.clientId);
    expect(caller.issuer).toBe(as.issuer);
    expect(caller.expiresAt).toBeGreaterThan(now());
    expect(JSON.stringify(caller)).not.toContain(accessToken);
  });

  it('refuses a token the server minted for another resource', async () => {
    const { accessToken } = await as.token({ resource: OTHER, scope: 'tools:read' });
    const error = await refusal(`Bearer ${accessToken}`);
    expect(error.reason).toBe('invalid_token');
    expect(error.status).toBe(401);
    expect(error.message).toContain('another resource');
  });

  it('refuses an expired token, beyond the leeway', async () => {
    const token = await as.sign(claims({ iat: now() - 600, exp: now() - 120 }));
    const error = await refusal(`Bearer ${token}`);
    expect([error.reason, error.message]).toEqual(['invalid_token', 'the token has expired']);
  });

  it('accepts a token that expired within the leeway', async () => {
    const token = await as.sign(claims({ iat: now() - 600, exp: now() - 5 }));
    await expect(rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT })).resolves.toMatchObject(
      {
        subject: 'alice',
      },
    );
  });

  it('refuses a token that is not valid yet', async () => {
    const token = await as.sign(claims({ nbf: now() + 600 }));
    const error = await refusal(`Bearer ${token}`);
    expect([error.reason, error.message]).toEqual(['invalid_token', 'the token is not valid yet']);
  });

  it('refuses a token naming another issuer, though signed with the right key', async () => {
    const token = await as.sign(claims({ iss: 'http://127.0.0.1:1/elsewhere' }));
    const error = await refusal(`Bearer ${token}`);
    expect(error.reason).toBe('invalid_token');
    expect(error.message).toContain('not issued by');
  });

  it('refuses a token with the wrong audience', async () => {
    const token = await as.sign(claims({ aud: 'http://127.0.0.1:8808/other' }));
    expect((await refusal(`Bearer ${token}`)).message).toContain('another resource');
  });

  it('refuses a forged signature: a key of its own under the real kid', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: as.currentKid })
      .sign(privateKey);
    const error = await refusal(`Bearer ${token}`);
    expect([error.reason, error.message]).toEqual([
      'invalid_token',
      'the token signature does not verify',
    ]);
  });

  it('refuses a token whose payload was altered after signing', async () => {
    const token = await as.sign(claims());
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(JSON.stringify(claims({ scope: 'tools:admin' }))).toString(
      'base64url',
    );
    const error = await refusal(`Bearer ${String(header)}.${payload}.${String(signature)}`);
    expect(error.reason).toBe('invalid_token');
  });

  it('refuses alg "none"', async () => {
    const token = new UnsecuredJWT(claims()).encode();
    const error = await refusal(`Bearer ${token}`);
    expect(error.reason).toBe('invalid_token');
    expect(error.message).toContain('"none" is not accepted');
  });

  it('refuses HS256, even with the published public key as the secret', async () => {
    const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: object[] };
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: as.currentKid })
      .sign(secret);
    const error = await refusal(`Bearer ${token}`);
    expect(error.reason).toBe('invalid_token');
    expect(error.message).toContain('"HS256" is not accepted');
  });

  it('requires typ at+jwt when told to', async () => {
    const strict = createResourceServer({ issuer: as.issuer, requireAccessTokenType: true });
    const { accessToken } = await as.token({ resource: ENDPOINT, scope: 'tools:read' });
    await expect(
      strict.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT }),
    ).resolves.toMatchObject({ scopes: ['tools:read'] });
    const typedJwt = await as.sign(claims(), { typ: 'JWT' });
    const error = await refusal(`Bearer ${typedJwt}`, { server: strict });
    expect(error.message).toContain('typ "at+jwt"');
    await expect(
      rs.authenticate(`Bearer ${typedJwt}`, { endpoint: ENDPOINT }),
    ).resolves.toBeDefined();
  });

  it('refuses a token without exp', async () => {
    const { exp: _, ...noExp } = claims();
    const token = await as.sign(noExp);
    expect((await refusal(`Bearer ${token}`)).reason).toBe('invalid_token');
  });

  it('follows a key rotation: new tokens verify, tokens under the retired key do not', async () => {
    const before = await as.token({ resource: ENDPOINT, scope: 'tools:read' });
    await rs.authenticate(`Bearer ${before.accessToken}`, { endpoint: ENDPOINT });
    await as.rotateKeys();
    const after = await as.token({ resource: ENDPOINT, scope: 'tools:admin' });
    const caller = await rs.authenticate(`Bearer ${after.accessToken}`, { endpoint: ENDPOINT });
    expect(caller.scopes).toEqual(['tools:admin']);
    const error = await refusal(`Bearer ${before.accessToken}`);
    expect(error.reason).toBe('invalid_token');
  });
});

describe('createResourceServer: the Authorization header', () => {
  it('answers a missing header and another scheme as missing_token (no error code)', async () => {
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz']) {
      const error = await refusal(header);
      expect([error.reason, error.status]).toEqual(['missing_token', 401]);
      expect(rs.challenge(error, ENDPOINT)).toBe(
        'Bearer resource_metadata="http://127.0.0.1:8808/.well-known/oauth-protected-resource/mcp", scope="tools:admin tools:read"',
      );
    }
  });

  it('answers a malformed bearer header as invalid_request', async () => {
    for (const header of [
      'Bearer',
      'Bearer a b',
      'Bearer "quoted"',
      `Bearer ${'x'.repeat(10)}\u0000`,
    ]) {
      expect((await refusal(header)).reason).toBe('invalid_request');
    }
  });

  it('answers garbage shaped like a JWT as invalid_token', async () => {
    for (const token of ['a.b.c', 'eyJhbGciOiJFUzI1NiJ9.e30.', '__proto__.constructor.x']) {
      const error = await refusal(`Bearer ${token}`);
      expect(error.reason).toBe('invalid_token');
    }
  });

  it('never repeats the token in a refusal', async () => {
    const token = await as.sign(claims({ aud: OTHER }));
    const error = await refusal(`Bearer ${token}`);
    const said = [error.message, JSON.stringify(error), rs.challenge(error, ENDPOINT)].join('\n');
    for (const part of token.split('.')) expect(said).not.toContain(part);
  });
});

describe('createResourceServer: opaque tokens through introspection', () => {
  it('accepts an active token for this resource and refuses one for another', async () => {
    const client = as.clients[0];
    if (client === undefined) throw new Error('no client');
    const opaque = createResourceServer({
      issuer: as.issuer,
      audience: OPAQUE,
      introspection: { clientId: client.clientId, clientSecret: client.clientSecret },
    });
    const { accessToken } = await as.token({ resource: OPAQUE, scope: 'tools:read' });
    const caller = await opaque.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT });
    expect(caller.scopes).toEqual(['tools:read']);
    expect(caller.clientId).toBe(client.clientId);
    const elsewhere = createResourceServer({
      issuer: as.issuer,
      audience: 'http://127.0.0.1:6666/mcp',
      introspection: { clientId: client.clientId, clientSecret: client.clientSecret },
    });
    await expect(
      elsewhere.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT }),
    ).rejects.toMatchObject({ reason: 'invalid_token', code: 'unauthorized' });
    await expect(
      opaque.authenticate('Bearer not-a-token-the-server-issued', { endpoint: ENDPOINT }),
    ).rejects.toMatchObject({ reason: 'invalid_token', message: 'the token is not active' });
  });

  it('says the server is unavailable when the introspection credentials are wrong', async () => {
    const wrong = createResourceServer({
      issuer: as.issuer,
      audience: OPAQUE,
      introspection: { clientId: 'nobody', clientSecret: 'wrong-secret-value' },
    });
    const error: unknown = await wrong
      .authenticate('Bearer opaque-token-value', { endpoint: ENDPOINT })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'unavailable', status: 503 });
    expect((error as Error).message).not.toContain('wrong-secret-value');
  });
});

describe('createResourceServer: discovery and metadata', () => {
  it('serves RFC 9728 metadata naming the issuer and the mapped scopes', () => {
    expect(rs.metadata(ENDPOINT)).toEqual({
      resource: ENDPOINT,
      authorization_servers: [as.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['tools:admin', 'tools:read'],
    });
    expect(rs.isMetadataPath('/.well-known/oauth-protected-resource/mcp', ENDPOINT)).toBe(true);
    expect(rs.isMetadataPath('/.well-known/oauth-protected-resource', ENDPOINT)).toBe(true);
    expect(rs.isMetadataPath('/.well-known/oauth-protected-resource/other', ENDPOINT)).toBe(false);
  });

  it('uses the configured audience as the resource', () => {
    const behindProxy = createResourceServer({
      issuer: as.issuer,
      audience: 'https://MCP.example.com/team/mcp/',
    });
    expect(behindProxy.resource(ENDPOINT)).toBe('https://mcp.example.com/team/mcp');
    expect(
      behindProxy.isMetadataPath('/.well-known/oauth-protected-resource/team/mcp', ENDPOINT),
    ).toBe(true);
  });

  it('fails clearly when the issuer is not the one its metadata names', async () => {
    const wrong = createResourceServer({ issuer: `${as.issuer}/` });
    await expect(wrong.discover()).rejects.toMatchObject({
      reason: 'unavailable',
      code: 'connector_unavailable',
    });
  });

  it('fails clearly (503) when the issuer does not answer', async () => {
    const down = createResourceServer({ issuer: 'http://127.0.0.1:1' });
    const error = await down
      .authenticate(`Bearer ${await as.sign(claims())}`, { endpoint: ENDPOINT })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'unavailable', status: 503 });
  });

  it('refuses bad configuration', () => {
    expect(() => createResourceServer({ issuer: 'not a url' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(() => createResourceServer({ issuer: as.issuer, algorithms: ['HS256'] })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(() => createResourceServer({ issuer: as.issuer, audience: 'ftp://x/mcp' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });
});

describe('createResourceServer: clock tolerance', () => {
  it('refuses a clockToleranceSec that is negative or not finite, at once (not a 503 per request)', () => {
    for (const clockToleranceSec of [-5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createResourceServer({ issuer: as.issuer, clockToleranceSec })).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
      expect(() =>
        createIntrospector({
          clientId: 'rs',
          clientSecret: 'secret',
          issuer: as.issuer,
          endpoint: () => Promise.resolve(`${as.issuer}/token/introspection`),
          clockToleranceSec,
        }),
      ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });
});

describe('ResourceServer.requireTool', () => {
  it('names the scopes that would be enough', async () => {
    const { accessToken } = await as.token({ resource: ENDPOINT, scope: 'tools:read' });
    const caller = await rs.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT });
    expect(rs.allows(caller, { namespace: 'fs', name: 'read', tags: ['read'] })).toBe(true);
    let error: unknown;
    try {
      rs.requireTool(caller, { namespace: 'fs', name: 'write', tags: ['write'] });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      reason: 'insufficient_scope',
      code: 'forbidden',
      status: 403,
      scopes: ['tools:admin'],
    });
    expect(rs.challenge(error as AuthError, ENDPOINT)).toContain(
      'error="insufficient_scope", error_description="tool fs:write needs scope tools:admin", scope="tools:admin"',
    );
  });
});

describe('ResourceServer: prompts, resources and the scope hint', () => {
  const scoped = () =>
    createResourceServer({
      issuer: as.issuer,
      scopes: {
        docs: { prompts: ['summarize'], resources: ['file:///docs/*'] },
        'tools:admin': { namespaces: ['*'] },
      },
    });

  it('refuses a prompt or resource the caller does not reach, naming the scopes', async () => {
    const rs2 = scoped();
    const caller = await rs2.authenticate(`Bearer ${await as.sign(claims({ scope: 'docs' }))}`, {
      endpoint: ENDPOINT,
    });
    expect(rs2.allowsPrompt(caller, { namespace: 'builtin', name: 'summarize' })).toBe(true);
    expect(rs2.allowsResource(caller, { namespace: 'fs', uri: 'file:///docs/a' })).toBe(true);
    expect(() => {
      rs2.requirePrompt(caller, { namespace: 'builtin', name: 'deploy' });
    }).toThrow(
      expect.objectContaining({
        reason: 'insufficient_scope',
        code: 'forbidden',
        scopes: ['tools:admin'],
        message: 'prompt "builtin:deploy" needs scope "tools:admin"',
      }),
    );
    const long = `file:///etc/${'x'.repeat(10_000)}`;
    let error: unknown;
    try {
      rs2.requireResource(caller, { namespace: 'fs', uri: long });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ reason: 'insufficient_scope', status: 403 });
    // A client-chosen URI is cut short before it reaches a message or a header.
    expect((error as Error).message.length).toBeLessThan(300);
  });

  it('suggests the mapped scopes on a 401, or the configured challengeScopes, or none', () => {
    const missing = new AuthError('missing_token', 'a bearer token is required');
    const invalid = new AuthError('invalid_token', 'the token has expired');
    expect(scoped().challenge(missing, ENDPOINT)).toMatch(/, scope="docs tools:admin"$/);
    expect(scoped().challenge(invalid, ENDPOINT)).toMatch(
      /error="invalid_token", error_description="the token has expired", scope="docs tools:admin"$/,
    );
    const hinted = createResourceServer({
      issuer: as.issuer,
      scopes: { docs: { prompts: ['summarize'] }, admin: { namespaces: ['*'] } },
      challengeScopes: ['docs'],
    });
    expect(hinted.challenge(missing, ENDPOINT)).toMatch(/, scope="docs"$/);
    const silent = createResourceServer({ issuer: as.issuer, challengeScopes: [] });
    expect(silent.challenge(missing, ENDPOINT)).not.toContain('scope=');
    const unavailable = new AuthError('unavailable', 'down');
    expect(scoped().challenge(unavailable, ENDPOINT)).not.toContain('scope=');
    expect(() => createResourceServer({ issuer: as.issuer, challengeScopes: ['a b'] })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });
});

describe('createResourceServer: an authorization server that misbehaves', () => {
  it('discovers once for many first requests at once, and keeps verifying after the server goes down', async () => {
    const own = await startAuthorizationServer({ resources: { [ENDPOINT]: ['tools:read'] } });
    try {
      const fresh = createResourceServer({ issuer: own.issuer });
      const { accessToken } = await own.token({ resource: ENDPOINT, scope: 'tools:read' });
      const callers = await Promise.all(
        Array.from({ length: 50 }, () =>
          fresh.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT }),
        ),
      );
      expect(callers.every((c) => c.scopes[0] === 'tools:read')).toBe(true);
      expect(own.hits('/.well-known/oauth-authorization-server')).toBe(1);
      expect(own.hits('/jwks')).toBe(1);
      own.goDown();
      // Keys in hand still verify; a key it never saw cannot be fetched: 503, not a crash.
      await expect(
        fresh.authenticate(`Bearer ${accessToken}`, { endpoint: ENDPOINT }),
      ).resolves.toMatchObject({ scopes: ['tools:read'] });
      const unknownKid = await own.forge(
        { iss: own.issuer, aud: ENDPOINT, exp: now() + 60 },
        'foreign-key',
      );
      const [, payload, signature] = unknownKid.split('.');
      const renamed = Buffer.from(
        JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'a-kid-never-published' }),
      ).toString('base64url');
      // Within the refetch cooldown the key set is not asked again: the key is simply unknown.
      const error = await refusal(`Bearer ${renamed}.${String(payload)}.${String(signature)}`, {
        server: fresh,
      });
      expect([error.status, error.message]).toEqual([
        401,
        `the token is signed with a key ${own.issuer} does not publish`,
      ]);
    } finally {
      await own.close();
    }
  });

  it('refuses a huge token without trying to verify it', async () => {
    const huge = `${'a'.repeat(200_000)}.${'b'.repeat(200_000)}.c`;
    const error = await refusal(`Bearer ${huge}`);
    expect(error.reason).toBe('invalid_token');
    expect(error.message.length).toBeLessThan(200);
  });
});
