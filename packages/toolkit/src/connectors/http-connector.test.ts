import { McpServer } from '@modelcontextprotocol/server';
import { fixtureCommand, listenMcp, recordEvents } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type Toolkit, type ToolkitEvent } from '../toolkit/toolkit.js';
import { createConnector, type Connector, type ConnectorEvent } from './connector.js';
import { LegacySseServerTransport } from './testing/legacy-sse-server.js';
import { serveMcpHttp } from './testing/serve-mcp-http.js';

// An MCP server whose `whoami` tool reports what reached it over HTTP: the URL and the headers.
function whoamiServer(): McpServer {
  const server = new McpServer({ name: 'whoami', version: '1.0.0' });
  // One prompt and one resource up front, so their handlers exist before the client connects.
  server.registerPrompt('hello', { description: 'Says hello.' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
  }));
  server.registerResource('motd', 'memo://motd', {}, (uri) => ({
    contents: [{ uri: uri.href, text: 'welcome' }],
  }));
  server.registerTool(
    'whoami',
    { description: 'Reports the request.', inputSchema: z.object({ n: z.number().optional() }) },
    (_args, ctx) => {
      const req = ctx.http?.req;
      const info = { url: req?.url, headers: req && Object.fromEntries(req.headers) };
      return { content: [{ type: 'text', text: JSON.stringify(info) }] };
    },
  );
  return server;
}

interface Served {
  readonly url: URL;
  close(): Promise<void>;
}

/** Streamable HTTP, one transport per session, like a real deployment. */
function serveStreamable(onServer: (server: McpServer) => void = () => undefined): Promise<Served> {
  return serveMcpHttp({
    server: () => {
      const server = whoamiServer();
      onServer(server);
      return server;
    },
  });
}

/** The older HTTP+SSE transport only: a GET opens the stream, POSTs go to /messages. */
function serveSseOnly(): Promise<Served> {
  const transports = new Map<string, LegacySseServerTransport>();
  return listenMcp(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/mcp') {
      const transport = new LegacySseServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      await whoamiServer().connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && transport !== undefined) {
      await transport.handlePost(req, res);
      return;
    }
    // What a legacy server answers to a Streamable HTTP POST.
    res.writeHead(405).end();
  });
}

const servers: Served[] = [];
const connectors: Connector[] = [];
const toolkits: Toolkit[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((c) => c.close()));
  await Promise.all(toolkits.splice(0).map((t) => t.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function whoami(
  connector: Connector,
): Promise<{ url?: string; headers?: Record<string, string> }> {
  const result = await connector.client!.callTool({ name: 'whoami', arguments: {} });
  const [block] = result.content as { type: string; text: string }[];
  return JSON.parse(block?.text ?? '{}') as { url?: string; headers?: Record<string, string> };
}

describe('Connector over HTTP', () => {
  it('sends its headers and bearer token and keeps the query string', async () => {
    const served = await serveStreamable();
    servers.push(served);
    const url = new URL(served.url);
    url.searchParams.set('tenant', 'a b');
    const connector = createConnector({ url, headers: { 'x-team': 'tools' }, token: 's3cret' });
    connectors.push(connector);
    connector.start();
    await connector.ready();
    const seen = await whoami(connector);
    expect(new URL(seen.url ?? '').searchParams.get('tenant')).toBe('a b');
    expect(seen.headers?.['x-team']).toBe('tools');
    expect(seen.headers?.authorization).toBe('Bearer s3cret');
  });

  it('falls back to HTTP+SSE for a server that predates Streamable HTTP', async () => {
    const served = await serveSseOnly();
    servers.push(served);
    const connector = createConnector(
      { url: served.url, token: 'legacy' },
      { namespace: 'legacy' },
    );
    connectors.push(connector);
    connector.start();
    await connector.ready();
    expect(connector.lists.tools.map((tool) => tool.name)).toEqual(['whoami']);
    expect((await whoami(connector)).headers?.authorization).toBe('Bearer legacy');
  });

  it('starts a new session when the server forgets its session (HTTP 404)', async () => {
    const forgotten = new Set<string>();
    const served = await serveMcpHttp({
      server: whoamiServer,
      intercept: (request, res) => {
        const session = request.headers['mcp-session-id'];
        if (typeof session !== 'string' || !forgotten.has(session)) return false;
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
        );
        return true;
      },
    });
    servers.push(served);
    const log = recordEvents<ConnectorEvent>();
    const connector = createConnector(served.url, {
      namespace: 'who',
      onEvent: log.push,
      backoff: { initialDelayMs: 10, maxDelayMs: 20 },
    });
    connectors.push(connector);
    connector.start();
    await connector.ready();
    const first = (await whoami(connector)).headers?.['mcp-session-id'];
    expect(first).toBeDefined();
    forgotten.add(first ?? '');
    await expect(whoami(connector)).rejects.toThrow(/404/);
    await expect.poll(() => connector.state, { timeout: 5_000 }).toBe('connected');
    await expect
      .poll(async () => (await whoami(connector)).headers?.['mcp-session-id'], { timeout: 5_000 })
      .not.toBe(first);
    const states = log.events.filter((e) => e.type === 'state_change').map((e) => e.state);
    expect(states).toEqual(['connecting', 'connected', 'disconnected', 'connecting', 'connected']);
  });
});

describe('Connector list changes', () => {
  it('follows prompt and resource list changes and resource updates the server pushes', async () => {
    const instances: McpServer[] = [];
    const served = await serveStreamable((server) => instances.push(server));
    servers.push(served);
    const log = recordEvents<ConnectorEvent>();
    const connector = createConnector(served.url, { namespace: 'pushy', onEvent: log.push });
    connectors.push(connector);
    const next = (type: ConnectorEvent['type']) =>
      log.waitFor((e) => e.type === type, { from: log.events.length });
    connector.start();
    await connector.ready();
    // The last instance serves the session (the era probe before it got one of its own).
    const server = instances.at(-1)!;

    const prompts = next('prompt_list_changed');
    server.registerPrompt('late', { description: 'Added later.' }, () => ({ messages: [] }));
    await prompts;
    expect(connector.lists.prompts.map((p) => p.name)).toEqual(['hello', 'late']);

    const resources = next('resource_list_changed');
    server.registerResource('notes', 'memo://notes', {}, (uri) => ({
      contents: [{ uri: uri.href, text: 'n' }],
    }));
    await resources;
    expect(connector.lists.resources.map((r) => r.uri)).toEqual(['memo://motd', 'memo://notes']);

    const updated = next('resource_updated');
    await server.server.sendResourceUpdated({ uri: 'memo://notes' });
    expect(await updated).toEqual({
      type: 'resource_updated',
      namespace: 'pushy',
      uri: 'memo://notes',
    });
  });
});

describe('toolkit start-up', () => {
  it('connects a healthy server while another hangs, without waiting for it', async () => {
    const events: ToolkitEvent[] = [];
    const toolkit = createToolkit({
      connectorDefaults: { connectTimeoutMs: 4_000, backoff: { initialDelayMs: 60_000 } },
      delegate: { call: () => Promise.resolve(undefined), onEvent: (event) => events.push(event) },
    });
    toolkits.push(toolkit);
    // Registered first, and never answers `initialize`.
    toolkit.addConnector(
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { namespace: 'hangs' },
    );
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'healthy' });
    const { stop } = await runToolkit(toolkit);
    const order = events
      .filter((e) => e.type === 'state_change' && e.state !== 'connecting')
      .map((e) => `${e.namespace}:${e.type === 'state_change' ? e.state : ''}`);
    expect(order).toEqual(['healthy:connected', 'hangs:failed']);
    await stop();
  });

  it('adds a connector while running and removes it, tools and child with it', async () => {
    const toolkit = createToolkit();
    toolkits.push(toolkit);
    const { stop } = await runToolkit(toolkit);
    expect(toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'late' })).toBe('late');
    await toolkit.ready();
    expect(toolkit.index.hasTool('late:echo')).toBe(true);
    const pid = toolkit.connectors()[0]?.pid;
    expect(pid).toBeGreaterThan(0);
    expect(await toolkit.removeConnector('late')).toBe(true);
    expect(toolkit.index.hasTool('late:echo')).toBe(false);
    expect(toolkit.connectors()).toEqual([]);
    expect(() => process.kill(pid ?? 0, 0)).toThrow();
    await stop();
  });

  it('removes a connector by the source it was added with', async () => {
    const toolkit = createToolkit();
    toolkits.push(toolkit);
    const stdio = fixtureCommand('stdio');
    toolkit.addConnector(stdio, { namespace: 'local' });
    toolkit.addConnector('http://127.0.0.1:9/mcp', { namespace: 'remote' });
    toolkit.addConnector({ url: 'http://127.0.0.1:9/other' }, { namespace: 'other' });
    // A URL as written or normalised, a source object, or a command line.
    expect(await toolkit.removeConnector('http://127.0.0.1:9/mcp')).toBe(true);
    expect(await toolkit.removeConnector(new URL('HTTP://127.0.0.1:9/other'))).toBe(true);
    expect(await toolkit.removeConnector([stdio.command, ...stdio.args].join(' '))).toBe(true);
    expect(toolkit.connectors()).toEqual([]);
    expect(await toolkit.removeConnector('http://127.0.0.1:9/mcp')).toBe(false);

    // A command shared by two connectors names neither.
    toolkit.addConnector({ command: process.execPath, args: ['a.js'] }, { namespace: 'a' });
    toolkit.addConnector({ command: process.execPath, args: ['b.js'] }, { namespace: 'b' });
    await expect(toolkit.removeConnector(process.execPath)).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await toolkit.removeConnector({ command: process.execPath, args: ['b.js'] })).toBe(true);
    expect(toolkit.connectors().map((c) => c.namespace)).toEqual(['a']);
  });
});
