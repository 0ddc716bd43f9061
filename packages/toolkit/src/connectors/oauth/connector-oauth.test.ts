import { generateKeyPairSync } from 'node:crypto';
import { ToolError } from '@toolplane/toolmodel';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolkit } from '../../toolkit/toolkit.js';
import { createConnector, type Connector, type ConnectorEvent } from '../connector.js';
import {
  browse,
  serveProtectedMcp,
  startOAuthServer,
  type ProtectedMcp,
  type TestOAuthServer,
} from '@toolplane/fixtures/oauth';
import { createConnectorOAuth, type ConnectorOAuthOptions } from './connector-oauth.js';
import { MemoryCredentialStore } from './credential-store.js';

const resources: string[] = [];
let as: TestOAuthServer;
let upstream: ProtectedMcp;
let store: MemoryCredentialStore;
const connectors: Connector[] = [];
// Everything a secret could leak into: console output, connector events, errors.
const said: string[] = [];

function hear(...values: unknown[]): void {
  for (const value of values) {
    said.push(
      value instanceof Error
        ? `${value.name}: ${value.message} ${String((value as { cause?: unknown }).cause)}`
        : typeof value === 'string'
          ? value
          : JSON.stringify(value),
    );
  }
}

beforeAll(async () => {
  as = await startOAuthServer({ resources });
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      hear(...args);
    });
  }
});

afterAll(async () => {
  await as.close();
  vi.restoreAllMocks();
});

beforeEach(async () => {
  upstream = await serveProtectedMcp({ issuer: as.issuer });
  resources.push(upstream.url.href);
  store = new MemoryCredentialStore();
});

afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.close()));
  await upstream.close();
});

function oauthFor(options: Partial<ConnectorOAuthOptions> = {}) {
  return createConnectorOAuth({ server: 'prot', url: upstream.url, store, ...options });
}

function connect(oauth: ReturnType<typeof oauthFor>, events: ConnectorEvent[] = []): Connector {
  const connector = createConnector(
    { url: upstream.url, oauth },
    {
      namespace: 'prot',
      backoff: { initialDelayMs: 10, maxDelayMs: 20 },
      onEvent: (event) => {
        events.push(event);
        hear(event, event.type === 'state_change' ? event.error : undefined);
      },
    },
  );
  connectors.push(connector);
  connector.start();
  return connector;
}

async function whoami(connector: Connector): Promise<{ scopes: string[] }> {
  const client = connector.client;
  if (client === undefined) throw new Error('not connected');
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first?.text ?? '{}') as { scopes: string[] };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    hear(error);
    return ToolError.isInstance(error) ? error.code : `not a ToolError: ${String(error)}`;
  }
  return undefined;
}

/** Logs in as a person would: the test plays the browser. */
async function logIn(oauth: ReturnType<typeof oauthFor>, scopes?: string[]) {
  return oauth.login({
    onAuthorizationUrl: async (url) => {
      hear(`open ${url.href}`);
      await browse(url);
    },
    timeoutMs: 10_000,
    ...(scopes === undefined ? {} : { scopes }),
  });
}

async function secrets(): Promise<string[]> {
  const values: string[] = [as.machine.clientSecret];
  for (const key of await store.list()) {
    const record = await store.load(key);
    if (record?.tokens?.access_token) values.push(record.tokens.access_token);
    if (record?.tokens?.refresh_token) values.push(record.tokens.refresh_token);
  }
  return values;
}

async function expectNoSecretSaid(extra: string[] = []): Promise<void> {
  const values = [...(await secrets()), ...extra];
  const text = said.join('\n');
  for (const value of values) expect(text.includes(value), 'a secret was said').toBe(false);
}

describe('ConnectorOAuth, authorization code + PKCE', () => {
  it('logs in headlessly (dynamic registration, PKCE, loopback redirect) and the connector calls with the token', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    const status = await logIn(oauth);
    expect(status).toMatchObject({
      loggedIn: true,
      grant: 'authorization_code',
      refreshable: true,
    });
    expect(status.scopes).toContain('tools:read');
    expect(JSON.stringify(status)).not.toContain(
      (await store.load(oauth.key))?.tokens?.access_token,
    );
    const record = await store.load(oauth.key);
    // Registered itself (no clientId given) and kept no login in progress.
    expect(record?.client?.client_id).toBeTruthy();
    expect(record?.pending).toBeUndefined();
    const connector = connect(oauth);
    await connector.ready();
    expect((await whoami(connector)).scopes).toContain('tools:read');
    expect(upstream.authorizations.at(-1)).toBe(`Bearer ${String(record?.tokens?.access_token)}`);
    await expectNoSecretSaid();
  });

  it('refreshes once on a 401 and tries the request again', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    await logIn(oauth);
    const connector = connect(oauth);
    await connector.ready();
    const before = as.grants.filter((g) => g === 'refresh_token').length;
    upstream.refuseOlderTokens();
    await waitUntilNewSecond();
    expect((await whoami(connector)).scopes).toContain('tools:read');
    expect(as.grants.filter((g) => g === 'refresh_token').length).toBe(before + 1);
    await expectNoSecretSaid();
  });

  it('refreshes before the token expires', async () => {
    // Every token "expires" within the refresh margin: each request refreshes first.
    const oauth = oauthFor({ scopes: ['tools:read'], refreshBeforeMs: 3_600_000 });
    await logIn(oauth);
    const first = (await store.load(oauth.key))?.tokens?.access_token;
    const before = as.grants.filter((g) => g === 'refresh_token').length;
    const connector = connect(oauth);
    await connector.ready();
    expect(as.grants.filter((g) => g === 'refresh_token').length).toBeGreaterThan(before);
    expect((await store.load(oauth.key))?.tokens?.access_token).not.toBe(first);
    expect(upstream.authorizations).not.toContain(`Bearer ${String(first)}`);
  });

  it('keeps refreshed tokens in memory, and says so, when the store refuses to save them', async () => {
    const refused: ToolError[] = [];
    const oauth = oauthFor({
      scopes: ['tools:read'],
      onUnsaved: (error) => refused.push(error),
    });
    await logIn(oauth);
    const saved = (await store.load(oauth.key))?.tokens?.access_token;
    // From here on the store is read-only, as a SQLite file this user may not write is.
    const readOnly = 'the SQLite store at "store.db" is read-only: it can be read, not written';
    vi.spyOn(store, 'save').mockRejectedValue(new ToolError('store_error', readOnly));
    const connector = connect(oauth);
    await connector.ready();
    upstream.refuseOlderTokens();
    await waitUntilNewSecond();
    // The refresh's save is refused: the call still goes through, on the refreshed token.
    expect((await whoami(connector)).scopes).toContain('tools:read');
    expect(refused.map((error) => [error.code, error.message])).toContainEqual([
      'store_error',
      readOnly,
    ]);
    expect((await store.load(oauth.key))?.tokens?.access_token).toBe(saved);
    expect(upstream.authorizations.at(-1)).not.toBe(`Bearer ${String(saved)}`);
    await expectNoSecretSaid();
  });

  it('fails a login the store refuses to save when no one is told of unsaved tokens', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    vi.spyOn(store, 'save').mockRejectedValue(new ToolError('store_error', 'read-only'));
    expect(await codeOf(logIn(oauth))).toBe('store_error');
  });

  it('goes auth_required, without a reconnect loop, when the refresh token is revoked', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    await logIn(oauth);
    const events: ConnectorEvent[] = [];
    const connector = connect(oauth, events);
    await connector.ready();
    const tokens = (await store.load(oauth.key))?.tokens;
    const leaked = [tokens?.access_token ?? '', tokens?.refresh_token ?? ''];
    await revokeAsClient(oauth.key, tokens?.refresh_token ?? '');
    upstream.refuseOlderTokens();
    await waitUntilNewSecond();
    expect(await codeOf(whoami(connector))).toBe('unauthorized');
    await waitFor(() => connector.state === 'auth_required');
    expect(await codeOf(connector.ready())).toBe('unauthorized');
    expect(connector.unavailable().code).toBe('unauthorized');
    expect(connector.lastError?.message).toContain('toolplane auth login prot');
    const states = events.flatMap((e) => (e.type === 'state_change' ? [e.state] : []));
    expect(states.at(-1)).toBe('auth_required');
    expect(states.filter((s) => s === 'connecting').length).toBeLessThanOrEqual(2);
    await expectNoSecretSaid(leaked);
  });

  it('connects again once a login made elsewhere stores new tokens, and only then', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    // Calls through: counts the connector's looks at the store.
    const looks = vi.spyOn(oauth, 'changedElsewhere');
    const looked = (): number =>
      looks.mock.settledResults.filter((result) => result.type === 'fulfilled').length;
    const connector = createConnector(
      { url: upstream.url, oauth },
      {
        namespace: 'prot',
        authRecheckMs: 25,
        onEvent: (event) => {
          hear(event);
        },
      },
    );
    connectors.push(connector);
    connector.start();
    await waitFor(() => connector.state === 'auth_required');
    // Nothing changed in the store: it stays put, without trying the server again.
    const tries = upstream.authorizations.length;
    const before = looked();
    await waitFor(() => looked() >= before + 3);
    expect(connector.state).toBe('auth_required');
    expect(upstream.authorizations.length).toBe(tries);
    // Another client of the same store (`toolplane auth login` in another process) logs in.
    await logIn(oauthFor({ scopes: ['tools:read'] }));
    await waitFor(() => connector.state === 'connected');
    expect((await whoami(connector)).scopes).toContain('tools:read');
    await expectNoSecretSaid();
  });

  it('uses tokens another client of the store refreshed instead of refreshing with a rotated-away refresh token', async () => {
    // Two gateway instances on one store: each holds its own client of the same credentials.
    const mine = oauthFor({ scopes: ['tools:read'] });
    await logIn(mine);
    const connector = connect(mine);
    await connector.ready();
    upstream.refuseOlderTokens();
    await waitUntilNewSecond();
    // The other instance refreshes (its margin makes every token "expiring"), rotating the
    // refresh token this one still holds.
    const other = oauthFor({ scopes: ['tools:read'], refreshBeforeMs: 3_600_000 });
    await other.authorization();
    const refreshes = as.grants.filter((g) => g === 'refresh_token').length;
    // This one's token is refused now: it takes the stored tokens, and refreshes nothing.
    expect((await whoami(connector)).scopes).toContain('tools:read');
    expect(as.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes);
    // The rotated refresh token still works for both.
    await other.authorization();
    expect((await whoami(connector)).scopes).toContain('tools:read');
    expect(connector.state).toBe('connected');
    await expectNoSecretSaid();
  });

  it('refuses a redirect whose state was changed', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    const login = oauth.login({
      onAuthorizationUrl: async (url) => {
        await browse(url, (u) => {
          u.searchParams.set('state', 'forged');
          return u;
        });
      },
      timeoutMs: 10_000,
    });
    expect(await codeOf(login)).toBe('unauthorized');
    expect((await oauth.status()).loggedIn).toBe(false);
  });

  it('refuses a code bound to another PKCE challenge', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    const login = oauth.login({
      onAuthorizationUrl: async (url) => {
        await browse(url, (u) => {
          u.searchParams.set('code_challenge', 'A'.repeat(43));
          return u;
        });
      },
      timeoutMs: 10_000,
    });
    expect(await codeOf(login)).toBe('unauthorized');
    expect((await oauth.status()).loggedIn).toBe(false);
  });

  it('refuses a redirect URI that is not loopback', async () => {
    const oauth = oauthFor();
    const login = oauth.login({
      onAuthorizationUrl: () => undefined,
      redirectUrl: 'http://example.com/callback',
    });
    expect(await codeOf(login)).toBe('invalid_config');
  });

  it('reports auth_required at once when no login was made', async () => {
    const connector = connect(oauthFor());
    expect(await codeOf(connector.ready())).toBe('unauthorized');
    expect(connector.state).toBe('auth_required');
  });

  it('shows the toolkit the connector as auth_required', async () => {
    const toolkit = createToolkit({});
    toolkit.addConnector({ url: upstream.url, oauth: oauthFor() }, { namespace: 'prot' });
    const stop = new AbortController();
    const running = toolkit.run({ signal: stop.signal });
    try {
      await toolkit.ready().catch(() => undefined);
      expect(toolkit.connector('prot')?.state).toBe('auth_required');
      // Its tools were never listed, so a call names the tool unknown; the connector says why.
      expect(toolkit.connector('prot')?.unavailable().code).toBe('unauthorized');
    } finally {
      stop.abort();
      await running;
    }
  });

  it('steps up to more scopes when interactive, and says what to run when not', async () => {
    const plain = oauthFor({ scopes: ['tools:read'] });
    await logIn(plain);
    const connector = connect(plain);
    await connector.ready();
    const write = () => connector.client?.callTool({ name: 'write', arguments: {} });
    expect(await codeOf(Promise.resolve().then(write))).toBe('forbidden');
    await connector.close();
    const interactive = oauthFor({
      scopes: ['tools:read'],
      interactive: async (url) => {
        await browse(url);
      },
    });
    const again = connect(interactive);
    await again.ready();
    const result = await again.client?.callTool({ name: 'write', arguments: {} });
    expect(JSON.stringify(result?.content)).toContain('written');
    expect((await interactive.status()).scopes).toContain('tools:write');
    await expectNoSecretSaid();
  });

  it('logs out: revokes at the server and deletes the record', async () => {
    const oauth = oauthFor({ scopes: ['tools:read'] });
    await logIn(oauth);
    expect(await oauth.logout()).toEqual({ revoked: true });
    expect(await store.load(oauth.key)).toBeUndefined();
    expect((await oauth.status()).loggedIn).toBe(false);
  });
});

describe('ConnectorOAuth, client credentials', () => {
  it('fetches a token for the resource, and a new one on a 401', async () => {
    const oauth = oauthFor({
      grant: 'client_credentials',
      clientId: as.machine.clientId,
      clientSecret: as.machine.clientSecret,
      scopes: ['tools:read'],
    });
    const connector = connect(oauth);
    await connector.ready();
    expect((await whoami(connector)).scopes).toContain('tools:read');
    const before = as.grants.filter((g) => g === 'client_credentials').length;
    upstream.refuseOlderTokens();
    await waitUntilNewSecond();
    expect((await whoami(connector)).scopes).toContain('tools:read');
    expect(as.grants.filter((g) => g === 'client_credentials').length).toBe(before + 1);
    await expectNoSecretSaid();
  });

  it('authenticates with a signed assertion (private_key_jwt), refused with another key', async () => {
    const oauth = oauthFor({
      grant: 'client_credentials',
      clientId: as.jwtMachine.clientId,
      privateKey: as.jwtMachine.privateKey,
      scopes: ['tools:read'],
    });
    const connector = connect(oauth);
    await connector.ready();
    expect((await whoami(connector)).scopes).toContain('tools:read');
    await connector.close();
    // The same client, signing with a key the server does not know.
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = createConnectorOAuth({
      server: 'forged',
      url: upstream.url,
      store,
      grant: 'client_credentials',
      clientId: as.jwtMachine.clientId,
      privateKey: stranger.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    expect(await codeOf(forged.authorization())).toBe('unauthorized');
    await expectNoSecretSaid([as.jwtMachine.privateKey]);
  });

  it('refuses a private key that is not one, or comes with a secret, never echoing it', () => {
    const base = {
      server: 'k',
      url: 'http://127.0.0.1:1/mcp',
      store,
      grant: 'client_credentials',
      clientId: 'c',
    } as const;
    const bad = '-----BEGIN PRIVATE KEY-----\nnot-a-key-at-all\n-----END PRIVATE KEY-----';
    for (const options of [
      { ...base, privateKey: bad },
      { ...base, privateKey: as.jwtMachine.privateKey, clientSecret: 's' },
      { ...base, clientId: undefined, privateKey: as.jwtMachine.privateKey },
    ]) {
      const error = (() => {
        try {
          createConnectorOAuth(options);
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(ToolError.isInstance(error) && error.code).toBe('invalid_config');
      expect((error as Error).message).not.toContain('not-a-key-at-all');
      expect((error as Error).message).not.toContain('PRIVATE KEY');
    }
  });

  it('fails with unauthorized, never echoing the secret, for a wrong secret', async () => {
    const wrong = 'definitely-not-the-secret-0123456789';
    const oauth = oauthFor({
      grant: 'client_credentials',
      clientId: as.machine.clientId,
      clientSecret: wrong,
    });
    const connector = connect(oauth);
    expect(await codeOf(connector.ready())).toBe('unauthorized');
    await expectNoSecretSaid([wrong]);
  });

  it('needs a client id', () => {
    expect(() => oauthFor({ grant: 'client_credentials' })).toThrow(ToolError);
  });
});

/** Waits for `check`, bounded. */
async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Tokens carry `iat` in whole seconds: the next token must be of a later second. */
async function waitUntilNewSecond(): Promise<void> {
  const next = (Math.floor(Date.now() / 1000) + 2) * 1000;
  await waitFor(() => Date.now() >= next, 5_000);
}

/** Revokes a refresh token as the (public) client that holds it. */
async function revokeAsClient(key: string, token: string): Promise<void> {
  const clientId = (await store.load(key))?.client?.client_id ?? '';
  const answer = await fetch(`${as.issuer}/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId, token_type_hint: 'refresh_token' }),
  });
  expect(answer.ok).toBe(true);
}
