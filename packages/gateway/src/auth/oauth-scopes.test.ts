import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import {
  createToolkit,
  defineResourceTemplate,
  defineTool,
  textResource,
} from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODERN_PROTOCOL_VERSION } from '../eras.js';
import { readBody, toWebRequest, writeWebResponse } from '../http/fetch.js';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { INITIALIZE_BODY, POST_HEADERS } from '../testing/raw-client.js';

// Scopes decide which prompts and resources a caller sees and uses, and what search mode shows
// it: a real authorization server (oidc-provider), the real gateway over HTTP, builtins and a
// real upstream MCP server over HTTP; each case in both eras (2025 sessions, 2026 per request).

type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];

/** A real upstream with a prompt and a resource of its own. */
async function startUpstream(): Promise<{ url: URL; close(): Promise<void> }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'upstream', version: '0.0.0' });
    server.registerPrompt('review', { description: 'Reviews a change.' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'Review it.' } }],
    }));
    server.registerResource('guide', 'up://guide', { mimeType: 'text/plain' }, () => ({
      contents: [{ uri: 'up://guide', text: 'the guide' }],
    }));
    return server;
  });
  const http: Server = createServer((req, res) => {
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

const template = (uriTemplate: string, name: string) =>
  defineResourceTemplate({
    uriTemplate,
    name,
    read: (vars) => `${name} ${JSON.stringify(vars)}`,
    complete: { [uriTemplate.includes('{path}') ? 'path' : 'id']: () => ['one', 'two'] },
  });

const SCOPES = {
  docs: { prompts: ['summarize'], resources: ['file:///docs/*'] },
  'tools:read': { tags: ['read'] },
  upstream: { namespaces: ['up'] },
  admin: { namespaces: ['*'] },
};

const resources: Record<string, string[]> = {};
let as: TestAuthorizationServer;
let upstream: Awaited<ReturnType<typeof startUpstream>>;
let running: RunningToolkit;
let gateway: HttpGateway;
let searching: HttpGateway;

beforeAll(async () => {
  as = await startAuthorizationServer({ resources });
  upstream = await startUpstream();
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'whoami',
        description: 'Says who called.',
        input: z.object({}),
        tags: ['read'],
        run: () => 'you',
      }),
      defineTool({
        name: 'wipe',
        description: 'Erases every backup in the vault.',
        input: z.object({}),
        tags: ['admin'],
        run: () => 'wiped',
      }),
    ],
    prompts: [
      { name: 'summarize', template: 'Summarize {{ text }}.' },
      { name: 'deploy', template: 'Deploy {{ service }}.' },
    ],
    resources: [
      textResource('readme', 'read me', { uri: 'file:///docs/readme' }),
      textResource('secret', 'the vault code', { uri: 'file:///etc/secret' }),
    ],
    resourceTemplates: [template('file:///docs/{path}', 'doc'), template('secret://{id}', 'key')],
  });
  toolkit.addConnector(upstream.url, { namespace: 'up' });
  running = await runToolkit(toolkit);
  const auth = () => createResourceServer({ issuer: as.issuer, scopes: SCOPES });
  gateway = await serveHttp(running.toolkit, { port: 0, auth: auth() });
  searching = await serveHttp(running.toolkit, { port: 0, mode: 'search', auth: auth() });
  for (const served of [gateway, searching]) {
    resources[served.url.href] = ['docs', 'tools:read', 'upstream', 'admin'];
  }
});

afterAll(async () => {
  await searching.close();
  await gateway.close();
  await running.stop();
  await upstream.close();
  await as.close();
});

async function token(scope: string, served: HttpGateway = gateway): Promise<string> {
  return (await as.token({ resource: served.url.href, scope })).accessToken;
}

async function connect(scope: string, era: Era, served: HttpGateway = gateway): Promise<Client> {
  const client = new Client(
    { name: 'scopes-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(served.url, {
      requestInit: { headers: { authorization: `Bearer ${await token(scope, served)}` } },
    }),
  );
  return client;
}

/** What a caller with `scope` sees of prompts, resources and templates. */
async function view(scope: string, era: Era) {
  const client = await connect(scope, era);
  try {
    return {
      prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
      resources: (await client.listResources()).resources.map((r) => r.uri).sort(),
      templates: (await client.listResourceTemplates()).resourceTemplates
        .map((t) => t.uriTemplate)
        .sort(),
    };
  } finally {
    await client.close();
  }
}

// The SDK client reads a 403 insufficient_scope as `Insufficient scope: required "admin"`.
const REFUSED = /insufficient.scope.*admin/i;

describe.each(ERAS)('serveHttp with auth, %s era: prompts and resources by scope', (era) => {
  it('lists only the prompts, resources and templates the token scopes grant', async () => {
    expect(await view('docs', era)).toEqual({
      prompts: ['builtin__summarize'],
      resources: ['file:///docs/readme'],
      templates: ['file:///docs/{path}'],
    });
    expect(await view('upstream', era)).toEqual({
      prompts: ['up__review'],
      resources: ['up://guide'],
      templates: [],
    });
    expect(await view('tools:read', era)).toEqual({ prompts: [], resources: [], templates: [] });
    expect(await view('admin', era)).toEqual({
      prompts: ['builtin__deploy', 'builtin__summarize', 'up__review'],
      resources: ['file:///docs/readme', 'file:///etc/secret', 'up://guide'],
      templates: ['file:///docs/{path}', 'secret://{id}'],
    });
  });

  it('gets, reads and completes what the scopes grant', async () => {
    const client = await connect('docs', era);
    try {
      const prompt = await client.getPrompt({
        name: 'builtin__summarize',
        arguments: { text: 'x' },
      });
      expect(JSON.stringify(prompt.messages)).toContain('Summarize x.');
      const read = await client.readResource({ uri: 'file:///docs/readme' });
      expect(read.contents[0]).toMatchObject({ text: 'read me' });
      const viaTemplate = await client.readResource({ uri: 'file:///docs/guide.md' });
      expect(JSON.stringify(viaTemplate.contents)).toContain('guide.md');
      const completion = await client.complete({
        ref: { type: 'ref/resource', uri: 'file:///docs/{path}' },
        argument: { name: 'path', value: '' },
      });
      expect(completion.completion.values).toEqual(['one', 'two']);
    } finally {
      await client.close();
    }
  });

  it('refuses to get, read, complete or subscribe to what the scopes do not grant', async () => {
    const client = await connect('docs', era);
    try {
      await expect(
        client.getPrompt({ name: 'builtin__deploy', arguments: { service: 'db' } }),
      ).rejects.toThrow(REFUSED);
      await expect(client.getPrompt({ name: 'up__review' })).rejects.toThrow(REFUSED);
      await expect(client.readResource({ uri: 'file:///etc/secret' })).rejects.toThrow(REFUSED);
      await expect(client.readResource({ uri: 'secret://42' })).rejects.toThrow(REFUSED);
      await expect(
        client.complete({
          ref: { type: 'ref/prompt', name: 'builtin__deploy' },
          argument: { name: 'service', value: '' },
        }),
      ).rejects.toThrow(REFUSED);
      await expect(
        client.complete({
          ref: { type: 'ref/resource', uri: 'secret://{id}' },
          argument: { name: 'id', value: '' },
        }),
      ).rejects.toThrow(REFUSED);
      if (era === 'legacy') {
        await expect(client.subscribeResource({ uri: 'file:///etc/secret' })).rejects.toThrow(
          REFUSED,
        );
        await expect(client.subscribeResource({ uri: 'file:///docs/readme' })).resolves.toEqual({});
      } else {
        await expect(
          client.listen({ resourceSubscriptions: ['file:///etc/secret'] }),
        ).rejects.toThrow(REFUSED);
      }
      // An unknown name is still the handler's to answer, as without OAuth.
      await expect(client.getPrompt({ name: 'builtin__nothing' })).rejects.toThrow(/no prompt/);
    } finally {
      await client.close();
    }
  });
});

describe('serveHttp with auth: the refusal of a prompt or resource', () => {
  it('is a 403 insufficient_scope naming the scope, as a refused tool call is', async () => {
    const docs = await token('docs');
    const init = await fetch(gateway.url, {
      method: 'POST',
      headers: { ...POST_HEADERS, authorization: `Bearer ${docs}` },
      body: INITIALIZE_BODY,
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const send = (method: string, params: object) =>
      fetch(gateway.url, {
        method: 'POST',
        headers: {
          ...POST_HEADERS,
          authorization: `Bearer ${docs}`,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }),
      });
    for (const [method, params, message] of [
      ['prompts/get', { name: 'builtin__deploy' }, 'prompt "builtin:deploy" needs scope "admin"'],
      [
        'resources/read',
        { uri: 'file:///etc/secret' },
        'resource "file:///etc/secret" needs scope "admin"',
      ],
    ] as const) {
      const refused = await send(method, params);
      expect(refused.status).toBe(403);
      // The header's quoted strings cannot hold quotes: they are dropped there.
      expect(refused.headers.get('www-authenticate')).toContain(
        `error="insufficient_scope", error_description="${message.replaceAll('"', '')}", scope="admin"`,
      );
      const body = (await refused.json()) as { error?: { message?: string } };
      expect(body.error?.message).toBe(message);
    }
  });
});

describe.each(ERAS)('serveHttp with auth, %s era: search mode by scope', (era) => {
  const text = (result: { content: unknown }) =>
    (result.content as { type: string; text: string }[])[0]?.text ?? '';

  it('never shows a tool the caller cannot see, in search results or describe_tool', async () => {
    const client = await connect('tools:read', era, searching);
    try {
      const found = await client.callTool({
        name: 'search_tools',
        arguments: { query: 'erases backups vault who called', limit: 50 },
      });
      expect(text(found)).toContain('builtin:whoami');
      expect(text(found)).not.toMatch(/wipe|vault|backup/i);
      const hidden = await client.callTool({
        name: 'describe_tool',
        arguments: { id: 'builtin:wipe' },
      });
      const missing = await client.callTool({
        name: 'describe_tool',
        arguments: { id: 'builtin:nothing' },
      });
      expect(hidden.isError).toBe(true);
      // Word for word what a tool that does not exist gets, but for the ID it was asked about.
      expect(text(hidden).replace('builtin:wipe', 'ID')).toBe(
        text(missing).replace('builtin:nothing', 'ID'),
      );
      expect(JSON.stringify(hidden)).not.toMatch(/vault|Erases/);
      const shown = await client.callTool({
        name: 'describe_tool',
        arguments: { id: 'builtin:whoami' },
      });
      expect(text(shown)).toContain('Says who called.');
    } finally {
      await client.close();
    }
  });

  it('fills a page from the next ones rather than leaving it short by what is hidden', async () => {
    const client = await connect('tools:read', era, searching);
    try {
      // The hidden tool matches more of the words, so it would fill the first page of one.
      const query = 'erases backups vault who called';
      const found = await client.callTool({ name: 'search_tools', arguments: { query, limit: 1 } });
      const { results } = found.structuredContent as { results: { id: string }[] };
      expect(results.map((r) => r.id)).toEqual(['builtin:whoami']);
      const admin = await connect('admin', era, searching);
      try {
        const all = await admin.callTool({ name: 'search_tools', arguments: { query, limit: 1 } });
        const first = (all.structuredContent as { results: { id: string }[] }).results;
        expect(first.map((r) => r.id)).toEqual(['builtin:wipe']);
      } finally {
        await admin.close();
      }
    } finally {
      await client.close();
    }
  });

  it('shows an admin every tool', async () => {
    const client = await connect('admin', era, searching);
    try {
      const found = await client.callTool({
        name: 'search_tools',
        arguments: { query: 'erases backups vault', limit: 50 },
      });
      expect(text(found)).toContain('builtin:wipe');
    } finally {
      await client.close();
    }
  });
});
