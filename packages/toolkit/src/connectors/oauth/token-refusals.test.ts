import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConnector, type Connector } from '../connector.js';
import {
  serveProtectedMcp,
  startOAuthServer,
  type ProtectedMcp,
  type TestOAuthServer,
} from '@toolplane/fixtures/oauth';
import { createConnectorOAuth } from './connector-oauth.js';
import { MemoryCredentialStore } from './credential-store.js';

const resources: string[] = [];
let as: TestOAuthServer;
let upstream: ProtectedMcp;
const connectors: Connector[] = [];

beforeAll(async () => {
  as = await startOAuthServer({ resources });
});

afterAll(async () => {
  await as.close();
});

beforeEach(async () => {
  upstream = await serveProtectedMcp({ issuer: as.issuer });
  resources.push(upstream.url.href);
});

afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.close()));
  await upstream.close();
});

/** A client-credentials connector reconnecting every 10–20 ms. */
function connect(): Connector {
  const oauth = createConnectorOAuth({
    server: 'prot',
    url: upstream.url,
    store: new MemoryCredentialStore(),
    grant: 'client_credentials',
    clientId: as.machine.clientId,
    clientSecret: as.machine.clientSecret,
    scopes: ['tools:read'],
  });
  const connector = createConnector(
    { url: upstream.url, oauth },
    { namespace: 'prot', backoff: { initialDelayMs: 10, maxDelayMs: 20 } },
  );
  connectors.push(connector);
  connector.start();
  return connector;
}

const tokensIssued = (): number => as.grants.filter((g) => g === 'client_credentials').length;

describe('a connector whose server refuses every token', () => {
  it('fetches no new token at each reconnect, and says the server refuses the token', async () => {
    upstream.refuseEveryToken();
    const before = tokensIssued();
    const connector = connect();
    // Ten reconnects or more, each presenting a token.
    await vi.waitFor(
      () => {
        expect(upstream.authorizations.length).toBeGreaterThanOrEqual(10);
      },
      {
        timeout: 10_000,
      },
    );
    expect(tokensIssued()).toBe(before + 1);
    expect(connector.state).not.toBe('connected');
    expect(connector.lastError?.message).toContain('refuses the access token just issued');
    expect(connector.lastError?.message).toContain('invalid_token');
    const secret = as.machine.clientSecret;
    expect(connector.lastError?.message).not.toContain(secret);
  });

  it('fetches one new token when a token that worked is refused, and no more', async () => {
    const connector = connect();
    await connector.ready();
    const before = tokensIssued();
    upstream.refuseEveryToken();
    const seen = upstream.authorizations.length;
    connector.reconnect();
    await vi.waitFor(
      () => {
        expect(upstream.authorizations.length).toBeGreaterThanOrEqual(seen + 10);
      },
      { timeout: 10_000 },
    );
    expect(tokensIssued()).toBe(before + 1);
    expect(connector.lastError?.message).toContain('refuses the access token just issued');
  });
});
