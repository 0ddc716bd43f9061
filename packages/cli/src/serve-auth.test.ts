import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  runCli,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
} from './testing/cli-process.js';

// `toolplane serve --http` with an `auth` section, against a real authorization server.

const tempDir = useTempDir('serve-auth');
const fixture = fixtureCommand('stdio');
const resources: Record<string, string[]> = {};
let as: TestAuthorizationServer;
const children: ChildProcess[] = [];
const minted: string[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer({ resources });
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child)));
});
afterAll(async () => {
  await as.close();
});

async function writeConfig(name: string, extra: Record<string, unknown>): Promise<void> {
  const config = {
    store: 'memory',
    builtins: true,
    mcpServers: { fx: { command: fixture.command, args: fixture.args } },
    ...extra,
  };
  await writeFile(join(tempDir(), name), JSON.stringify(config));
}

/** Starts `serve --http` and keeps everything it prints. */
function serve(config: string): { child: ChildProcess; printed: () => string } {
  const child = startCli([...SERVE_HTTP, '--config', config], {
    command: binCommand,
    cwd: tempDir(),
    stdin: 'pipe',
  });
  children.push(child);
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  return { child, printed: () => printed };
}

async function token(resource: string, scope: string): Promise<string> {
  const { accessToken } = await as.token({ resource, scope });
  minted.push(accessToken);
  return accessToken;
}

async function toolNames(url: URL, accessToken: string): Promise<string[]> {
  const client = new Client({ name: 'serve-auth-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('toolplane serve --http with auth', () => {
  it('serves OAuth: metadata, 401 challenges, tools filtered by scope, nothing secret printed', async () => {
    await writeConfig('auth.config.json', {
      auth: {
        issuer: as.issuer,
        scopes: { 'fx:read': { namespaces: ['fx'] }, 'time:read': { tools: ['builtin:now'] } },
      },
    });
    const { child, printed } = serve('auth.config.json');
    const url = await listeningUrl(child);
    resources[url.href] = ['fx:read', 'time:read', 'unmapped'];

    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: url.href, authorization_servers: [as.issuer] });

    const bare = await fetch(url, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toContain('resource_metadata="');
    await bare.text();

    const fxOnly = await toolNames(url, await token(url.href, 'fx:read'));
    expect(fxOnly.length).toBeGreaterThan(0);
    expect(fxOnly.every((name) => name.startsWith('fx__'))).toBe(true);
    expect(await toolNames(url, await token(url.href, 'unmapped'))).toEqual([]);

    const forged = await as.forge(
      { iss: as.issuer, aud: url.href, scope: 'fx:read', exp: Math.floor(Date.now() / 1000) + 60 },
      'foreign-key',
    );
    minted.push(forged);
    const refused = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await refused.text();

    expect(printed()).toContain(`OAuth: clients need an access token from ${as.issuer}`);
    for (const secret of [...minted, ...as.clients.map((c) => c.clientSecret)]) {
      expect(printed()).not.toContain(secret);
    }
  });

  it('serves with a warning when the issuer does not answer, refusing requests with 503', async () => {
    await writeConfig('down.config.json', { auth: { issuer: 'http://127.0.0.1:1' } });
    const { child, printed } = serve('down.config.json');
    const url = await listeningUrl(child);
    expect(printed()).toMatch(/warning OAuth: no authorization server metadata found/);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const jwtShaped = `${part({ alg: 'ES256', kid: 'k' })}.${part({ sub: 'x' })}.c2ln`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwtShaped}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(503);
    // When the issuer will be asked again: what is left of the 5 s its failed discovery holds.
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 5).toBe(true);
    await response.text();
  });

  it("answers the dashboard's login 503 while the issuer does not answer, not a wrong token", async () => {
    await writeConfig('down-ui.config.json', { auth: { issuer: 'http://127.0.0.1:1' } });
    const { child } = serve('down-ui.config.json');
    const url = await listeningUrl(child);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const jwtShaped = `${part({ alg: 'ES256', kid: 'k' })}.${part({ sub: 'x' })}.c2ln`;
    const response = await fetch(new URL('/ui/api/login', url), {
      method: 'POST',
      headers: { origin: url.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ token: jwtShaped }),
    });
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    expect(response.status).toBe(503);
    expect(body.error?.code).toBe('connector_unavailable');
    expect(body.error?.message).toContain('try again');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('refuses a JWT not typed at+jwt with requireAccessTokenType (RFC 9068), and takes one that is', async () => {
    await writeConfig('typed.config.json', {
      auth: { issuer: as.issuer, requireAccessTokenType: true },
    });
    const { child } = serve('typed.config.json');
    const url = await listeningUrl(child);
    const claims = {
      iss: as.issuer,
      aud: url.href,
      sub: 'alice',
      scope: 'fx:read',
      exp: Math.floor(Date.now() / 1000) + 60,
    };
    const untyped = await as.sign(claims, { typ: 'JWT' });
    minted.push(untyped);
    const refused = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${untyped}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await refused.text();
    const typed = await as.sign(claims, { typ: 'at+jwt' });
    minted.push(typed);
    expect((await toolNames(url, typed)).length).toBeGreaterThan(0);
  });

  it('refuses auth together with http.token, naming both', async () => {
    await writeConfig('both.config.json', {
      auth: { issuer: as.issuer },
      http: { token: 'a-static-token-of-24-chars' },
    });
    const ran = await runCli([...SERVE_HTTP, '--config', 'both.config.json'], {
      command: binCommand,
      cwd: tempDir(),
    });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/auth \(OAuth\) and http\.token .* are exclusive/);
    expect(ran.stderr).not.toContain('a-static-token-of-24-chars');
  });

  it('refuses auth together with a token from the environment', async () => {
    await writeConfig('env.config.json', { auth: { issuer: as.issuer } });
    const ran = await runCli([...SERVE_HTTP, '--config', 'env.config.json'], {
      command: binCommand,
      cwd: tempDir(),
      env: { TOOLPLANE_TOKEN: 'an-env-token-of-24-chars' },
    });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('cannot be used too');
    expect(ran.stderr).not.toContain('an-env-token-of-24-chars');
  });
});
