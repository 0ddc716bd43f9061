import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { audit, createToolkit, defineTool, getSession, type Logger } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODERN_PROTOCOL_VERSION } from '../eras.js';
import { readBody, toWebRequest, writeWebResponse } from '../http/fetch.js';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { INITIALIZE_BODY, initializeWith, POST_HEADERS } from '../testing/raw-client.js';
import type { ToolCallRecord } from '../observe/observer.js';

// The gateway as an OAuth resource server, end to end: a real authorization server
// (oidc-provider), the real gateway over HTTP, a real upstream MCP server over HTTP.

const said: string[] = [];
const recordingLogger: Logger = {
  debug: (m, d) => said.push(m, JSON.stringify(d ?? {})),
  info: (m, d) => said.push(m, JSON.stringify(d ?? {})),
  warn: (m, d) => said.push(m, JSON.stringify(d ?? {})),
  error: (m, d) => said.push(m, JSON.stringify(d ?? {})),
};

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called, as the gateway verified it.',
  input: z.object({}),
  tags: ['read'],
  run: () => JSON.stringify(getSession().auth ?? null),
});
const wipe = defineTool({
  name: 'wipe',
  description: 'An admin-only tool.',
  input: z.object({}),
  tags: ['admin'],
  run: () => 'wiped',
});

/** A real MCP server over HTTP that records the Authorization header of every request. */
async function startRecordingUpstream(): Promise<{
  url: URL;
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}> {
  const authorizations: (string | undefined)[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'recording', version: '0.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes its text.', inputSchema: z.object({ text: z.string() }) },
      ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
  });
  const http: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    void readBody(req)
      .then((body) =>
        handler.fetch(toWebRequest(req, new URL(req.url ?? '/', 'http://up'), { body, res })),
      )
      .then((response) => writeWebResponse(res, response));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${String(port)}/`),
    authorizations,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => {
        http.close(() => {
          resolve();
        });
        http.closeAllConnections();
      });
    },
  };
}

// What an audit sink sees: the toolrun record and, through getSession(), who called.
// What the gateway's observer (metrics, audit lines) heard of each call.
const observed: ToolCallRecord[] = [];
const audited: { toolId: string; subject: string | undefined; scopes: readonly string[] }[] = [];

const resources: Record<string, string[]> = {};
const OTHER_RESOURCE = 'http://127.0.0.1:1/mcp';
let as: TestAuthorizationServer;
let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
let running: RunningToolkit;
let gateway: HttpGateway;
const tokensSeen: string[] = [];

const now = () => Math.floor(Date.now() / 1000);

async function token(scope: string, resource = gateway.url.href): Promise<string> {
  const { accessToken } = await as.token({ resource, scope });
  tokensSeen.push(accessToken);
  return accessToken;
}

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: as.issuer,
    aud: gateway.url.href,
    sub: 'mallory',
    client_id: 'client-m',
    scope: 'tools:admin',
    iat: now(),
    exp: now() + 300,
    ...overrides,
  };
}

async function post(
  body: string,
  options: { token?: string; session?: string } = {},
): Promise<Response> {
  return fetch(gateway.url, {
    method: 'POST',
    headers: {
      ...POST_HEADERS,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(options.session === undefined
        ? {}
        : { 'mcp-session-id': options.session, 'mcp-protocol-version': '2025-11-25' }),
    },
    body,
  });
}

async function connect(accessToken: string, era: 'legacy' | 'modern' = 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'oauth-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

async function listNames(accessToken: string): Promise<string[]> {
  const client = await connect(accessToken);
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  as = await startAuthorizationServer({ resources });
  upstream = await startRecordingUpstream();
  const toolkit = createToolkit({
    tools: [whoami, wipe],
    logger: recordingLogger,
    middleware: [
      audit((record) => {
        const auth = getSession().auth;
        audited.push({ toolId: record.toolId, subject: auth?.subject, scopes: auth?.scopes ?? [] });
      }),
    ],
  });
  toolkit.addConnector(upstream.url, { namespace: 'up' });
  running = await runToolkit(toolkit);
  gateway = await serveHttp(running.toolkit, {
    port: 0,
    logger: recordingLogger,
    observe: { toolCall: (record) => observed.push(record) },
    auth: createResourceServer({
      issuer: as.issuer,
      scopes: {
        'tools:read': { tags: ['read'] },
        upstream: { tools: ['up:echo'] },
        'tools:admin': { namespaces: ['*'] },
      },
      // Rotation is followed at once here; the default waits 30 s between refetches.
      jwks: { cooldownDuration: 0 },
    }),
  });
  resources[gateway.url.href] = ['tools:read', 'upstream', 'tools:admin', 'unmapped'];
  resources[OTHER_RESOURCE] = ['tools:admin'];
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
  await upstream.close();
  await as.close();
});

describe('serveHttp with auth: protected resource metadata (RFC 9728)', () => {
  it('serves the metadata at the path-suffixed and the bare well-known path', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, gateway.url));
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: gateway.url.href,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['tools:admin', 'tools:read', 'upstream'],
      });
    }
  });

  it('answers 401 with a challenge naming the metadata and suggesting the scopes when no token is sent', async () => {
    const response = await post(INITIALIZE_BODY);
    expect(response.status).toBe(401);
    // The scope hint (RFC 6750 §3, MCP scope selection) is what scopes_supported lists.
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', gateway.url).href}", scope="tools:admin tools:read upstream"`,
    );
  });
});

describe('serveHttp with auth: refused tokens', () => {
  const cases: [string, () => Promise<string>, string][] = [
    ['an expired token', () => as.sign(claims({ iat: now() - 900, exp: now() - 300 })), 'expired'],
    ['a token not valid yet', () => as.sign(claims({ nbf: now() + 900 })), 'not valid yet'],
    ['a forged signature', () => as.forge(claims(), 'foreign-key'), 'signature'],
    ['another issuer', () => as.sign(claims({ iss: 'http://127.0.0.1:2' })), 'not issued by'],
    ['the wrong audience', () => as.sign(claims({ aud: 'http://x/mcp' })), 'another resource'],
    ['alg none', () => as.forge(claims(), 'none'), 'not accepted'],
    ['HS256 keyed with the public key', () => as.forge(claims(), 'hs256'), 'not accepted'],
    ['a real token for another resource', () => token('tools:admin', OTHER_RESOURCE), 'another'],
  ];

  it.each(cases)('refuses %s with 401 invalid_token', async (_, make, why) => {
    const bad = await make();
    tokensSeen.push(bad);
    const response = await post(INITIALIZE_BODY, { token: bad });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"/);
    expect(challenge).toContain(why);
    const body = await response.text();
    for (const part of bad.split('.').filter((p) => p.length > 8)) {
      expect(body + challenge).not.toContain(part);
    }
  });
});

describe('serveHttp with auth: the Authorization header', () => {
  const initialize = (authorization: string[]) => initializeWith(gateway.url, { authorization });

  it('accepts the scheme in any case, followed by several spaces', async () => {
    const good = await token('tools:read');
    expect((await initialize([`bearer ${good}`])).status).toBe(200);
    expect((await initialize([`BEARER   ${good}`])).status).toBe(200);
  });

  it('refuses two Authorization headers with 400 invalid_request, the good token in either', async () => {
    const good = await token('tools:read');
    const other = await token('tools:admin');
    for (const headers of [
      [`Bearer ${good}`, `Bearer ${other}`],
      [`Bearer ${good}`, 'Bearer junk'],
      ['Bearer junk', `Bearer ${good}`],
    ]) {
      const { status, www } = await initialize(headers);
      expect(status).toBe(400);
      expect(www).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_request"/);
      expect(www).not.toContain(good);
    }
  });
});

describe('serveHttp with auth: scopes decide what a caller sees and calls', () => {
  it('lists the tools each token scope grants, and none for unmapped scopes', async () => {
    expect(await listNames(await token('tools:read'))).toEqual(['builtin__whoami']);
    expect(await listNames(await token('upstream tools:read'))).toEqual([
      'builtin__whoami',
      'up__echo',
    ]);
    const all = await listNames(await token('tools:admin'));
    // Every tool the gateway serves.
    expect([...all].sort()).toEqual(['builtin__whoami', 'builtin__wipe', 'up__echo']);
    expect(await listNames(await token('unmapped'))).toEqual([]);
  });

  it('refuses a call to a tool the token does not reach: 403 insufficient_scope naming the scope', async () => {
    const readOnly = await token('tools:read');
    const init = await post(INITIALIZE_BODY, { token: readOnly });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'builtin__wipe', arguments: {} },
    });
    const refused = await post(call, { token: readOnly, session });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope".*scope="tools:admin"$/,
    );
    await refused.text();
  });

  it('filters, refuses and identifies 2026-07-28 requests (no session) as it does 2025 ones', async () => {
    const client = await connect(await token('tools:read'), 'modern');
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['builtin__whoami']);
      const result = await client.callTool({ name: 'builtin__whoami', arguments: {} });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ scopes: ['tools:read'], issuer: as.issuer });
      await expect(client.callTool({ name: 'builtin__wipe', arguments: {} })).rejects.toThrow(
        /insufficient_scope|tools:admin|403/,
      );
    } finally {
      await client.close();
    }
  });

  it('hands the verified caller, and never the token, to tools as getSession().auth', async () => {
    const readOnly = await token('tools:read');
    const client = await connect(readOnly);
    try {
      const result = await client.callTool({ name: 'builtin__whoami', arguments: {} });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      const auth = JSON.parse(text) as Record<string, unknown>;
      expect(auth).toMatchObject({
        subject: as.clients[0]?.clientId,
        clientId: as.clients[0]?.clientId,
        scopes: ['tools:read'],
        issuer: as.issuer,
      });
      expect(text).not.toContain(readOnly);
      expect(audited).toContainEqual({
        toolId: 'builtin:whoami',
        subject: as.clients[0]?.clientId,
        scopes: ['tools:read'],
      });
      // Audit lines name the OAuth subject as who called.
      expect(observed).toContainEqual(
        expect.objectContaining({
          tool: 'builtin:whoami',
          outcome: 'ok',
          subject: as.clients[0]?.clientId,
        }),
      );
    } finally {
      await client.close();
    }
  });

  it('refuses a call through search mode call_tool with a JSON-RPC error naming the scope', async () => {
    const searching = await serveHttp(running.toolkit, {
      port: 0,
      mode: 'search',
      auth: createResourceServer({
        issuer: as.issuer,
        audience: gateway.url.href,
        scopes: { 'tools:read': { tags: ['read'] }, 'tools:admin': { namespaces: ['*'] } },
      }),
    });
    const client = new Client({ name: 'oauth-test', version: '0.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(searching.url, {
          requestInit: { headers: { authorization: `Bearer ${await token('tools:read')}` } },
        }),
      );
      const allowed = await client.callTool({
        name: 'call_tool',
        arguments: { id: 'builtin:whoami', arguments: {} },
      });
      expect(allowed.isError).not.toBe(true);
      await expect(
        client.callTool({ name: 'call_tool', arguments: { id: 'builtin:wipe', arguments: {} } }),
      ).rejects.toThrow(/insufficient_scope: tool "builtin:wipe" needs scope "tools:admin"/);
    } finally {
      await client.close();
      await searching.close();
    }
  });

  it('never passes the client token to an upstream', async () => {
    const before = upstream.authorizations.length;
    const accessToken = await token('upstream');
    const client = await connect(accessToken);
    try {
      const result = await client.callTool({ name: 'up__echo', arguments: { text: 'hi' } });
      expect(result.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    const sent = upstream.authorizations.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((header) => header === undefined)).toBe(true);
  });
});

describe('serveHttp with auth: sessions', () => {
  it('answers a session only to the caller that opened it', async () => {
    const alice = await token('tools:read');
    const init = await post(INITIALIZE_BODY, { token: alice });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    expect(session).not.toBe('');
    const list = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    const mallory = await as.sign(claims({ sub: 'mallory', scope: 'tools:admin' }));
    tokensSeen.push(mallory);
    const stolen = await post(list, { token: mallory, session });
    expect(stolen.status).toBe(404);
    await stolen.text();
    const own = await post(list, { token: await token('tools:read'), session });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('builtin__whoami');
  });
});

describe('serveHttp with auth: key rotation mid-run', () => {
  it('accepts tokens under the new key and refuses those under the retired one', async () => {
    const old = await token('tools:read');
    expect(await listNames(old)).toEqual(['builtin__whoami']);
    await as.rotateKeys();
    const fresh = await token('tools:admin');
    expect(await listNames(fresh)).toContain('builtin__wipe');
    const refused = await post(INITIALIZE_BODY, { token: old });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await refused.text();
  });
});

describe('serveHttp with auth: secrets', () => {
  it('keeps tokens and the client secret out of every log line and /healthz', async () => {
    const health = await (await fetch(new URL('/healthz', gateway.url))).text();
    const withToken = await (
      await fetch(new URL('/healthz', gateway.url), {
        headers: { authorization: `Bearer ${await token('tools:admin')}` },
      })
    ).text();
    const everything = [...said, health, withToken].join('\n');
    const secrets = [...tokensSeen, ...as.clients.map((c) => c.clientSecret)];
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(JSON.parse(withToken)).toEqual({ status: expect.any(String) as string });
  });

  it('refuses auth together with a static token', async () => {
    await expect(
      serveHttp(running.toolkit, {
        port: 0,
        token: 'static',
        auth: createResourceServer({ issuer: as.issuer }),
      }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
  });
});
