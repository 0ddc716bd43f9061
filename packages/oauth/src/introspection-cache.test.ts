import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntrospectionOptions } from './introspection.js';
import { createResourceServer } from './resource-server.js';
import { startAuthorizationServer, type TestAuthorizationServer } from './testing/index.js';

// The introspection cache against a real authorization server (oidc-provider): how often the
// introspection endpoint is asked is what the cache changes.

const ENDPOINT = 'http://127.0.0.1:8808/mcp';
const OPAQUE = 'http://127.0.0.1:7777/mcp';
const INTROSPECTION = '/token/introspection';

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: { [OPAQUE]: ['tools:read'] },
    opaque: [OPAQUE],
  });
});

afterAll(async () => {
  await as.close();
});

function server(cache?: IntrospectionOptions['cache']) {
  const client = as.clients[0];
  if (client === undefined) throw new Error('no client');
  return createResourceServer({
    issuer: as.issuer,
    audience: OPAQUE,
    introspection: {
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      ...(cache === undefined ? {} : { cache }),
    },
  });
}

async function opaqueToken(): Promise<string> {
  return (await as.token({ resource: OPAQUE, scope: 'tools:read' })).accessToken;
}

/** How many introspection requests `run` made. */
async function asked(run: () => Promise<unknown>): Promise<number> {
  const before = as.hits(INTROSPECTION);
  await run();
  return as.hits(INTROSPECTION) - before;
}

describe('introspection cache', () => {
  it('asks once for a token used many times, and answers every request with the same caller', async () => {
    const rs = server();
    const token = await opaqueToken();
    const callers: unknown[] = [];
    const count = await asked(async () => {
      for (let i = 0; i < 5; i++) {
        callers.push(await rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT }));
      }
    });
    expect(count).toBe(1);
    expect(new Set(callers.map((c) => JSON.stringify(c))).size).toBe(1);
    expect(callers[0]).toMatchObject({ scopes: ['tools:read'] });
  });

  it('asks once for a burst of requests with one token', async () => {
    const rs = server();
    const token = await opaqueToken();
    const count = await asked(() =>
      Promise.all(
        Array.from({ length: 10 }, () =>
          rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT }),
        ),
      ),
    );
    expect(count).toBe(1);
  });

  it('asks every time with cache: false, and when maxTtlSec is 0', async () => {
    for (const rs of [server(false), server({ maxTtlSec: 0 })]) {
      const token = await opaqueToken();
      const count = await asked(async () => {
        for (let i = 0; i < 3; i++)
          await rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT });
      });
      expect(count).toBe(3);
    }
  });

  it('does not cache an inactive answer: each refusal asks again', async () => {
    const rs = server();
    const count = await asked(async () => {
      for (let i = 0; i < 3; i++) {
        await expect(
          rs.authenticate('Bearer an-opaque-token-nobody-issued', { endpoint: ENDPOINT }),
        ).rejects.toMatchObject({ reason: 'invalid_token' });
      }
    });
    expect(count).toBe(3);
  });

  it('keeps at most maxEntries answers, dropping the least recently used', async () => {
    const rs = server({ maxEntries: 2 });
    const [a, b, c] = await Promise.all([opaqueToken(), opaqueToken(), opaqueToken()]);
    const use = (token: string | undefined) =>
      rs.authenticate(`Bearer ${String(token)}`, { endpoint: ENDPOINT });
    expect(
      await asked(async () => {
        await use(a);
        await use(b);
      }),
    ).toBe(2);
    // a used again (now the most recent), then c pushes b out.
    expect(
      await asked(async () => {
        await use(a);
        await use(c);
      }),
    ).toBe(1);
    expect(await asked(() => use(a))).toBe(0);
    expect(await asked(() => use(b))).toBe(1);
  });

  it('still checks the audience of a cached answer', async () => {
    const rs = server();
    const token = await opaqueToken();
    await rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT });
    const elsewhere = createResourceServer({
      issuer: as.issuer,
      audience: 'http://127.0.0.1:6666/mcp',
      introspection: {
        clientId: as.clients[0]?.clientId ?? '',
        clientSecret: as.clients[0]?.clientSecret ?? '',
      },
    });
    await expect(
      elsewhere.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT }),
    ).rejects.toMatchObject({ reason: 'invalid_token' });
  });

  it('rejects an aborted request without failing another one waiting for the same answer', async () => {
    const rs = server();
    const token = await opaqueToken();
    const controller = new AbortController();
    const aborted = rs.authenticate(`Bearer ${token}`, {
      endpoint: ENDPOINT,
      signal: controller.signal,
    });
    const waiting = rs.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT });
    controller.abort(new Error('client went away'));
    await expect(aborted).rejects.toThrow('client went away');
    await expect(waiting).resolves.toMatchObject({ scopes: ['tools:read'] });
  });

  it('refuses cache bounds that are not numbers in range', () => {
    for (const cache of [
      { maxTtlSec: -1 },
      { maxTtlSec: Number.NaN },
      { maxEntries: 0 },
      { maxEntries: 1.5 },
      { maxEntries: Number.POSITIVE_INFINITY },
    ]) {
      expect(() => server(cache)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });

  // Last: the authorization server stays down.
  it('answers from the cache while it is fresh, and asks again once it is due', async () => {
    const cached = server();
    const uncached = server({ maxTtlSec: 0 });
    const token = await opaqueToken();
    await cached.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT });
    await uncached.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT });
    as.goDown();
    await expect(
      cached.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT }),
    ).resolves.toMatchObject({ scopes: ['tools:read'] });
    await expect(
      uncached.authenticate(`Bearer ${token}`, { endpoint: ENDPOINT }),
    ).rejects.toMatchObject({ reason: 'unavailable' });
  });
});
