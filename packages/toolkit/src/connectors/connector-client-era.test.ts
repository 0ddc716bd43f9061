import { McpServer } from '@modelcontextprotocol/server';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector } from './connector.js';
import { serveMcpHttp, type ServedMcp } from './testing/serve-mcp-http.js';

// The connectors are SDK v2 clients; pinned to 2025 they speak it to every server, with no probe.
// They page through lists themselves (the v2 client's own list methods fail past 64 pages).

const PAGES = 70;
const LOOP_TO = 'page-3';

/** A server with one tool per page; the last page's cursor points back at one seen before. */
function pagedServer(): McpServer {
  const server = new McpServer(
    { name: 'paged', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.server.setRequestHandler('tools/list', (request) => {
    const cursor = request.params?.cursor;
    const page = cursor === undefined ? 0 : Number(cursor.slice('page-'.length));
    return {
      tools: [{ name: `tool_${page}`, inputSchema: { type: 'object' } }],
      nextCursor: page + 1 < PAGES ? `page-${page + 1}` : LOOP_TO,
    };
  });
  return server;
}

const servers: ServedMcp[] = [];
const connectors: Connector[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function start(source: Parameters<typeof createConnector>[0]): Connector {
  const connector = createConnector(source, { era: '2025' });
  connectors.push(connector);
  connector.start();
  return connector;
}

describe('Connector on the SDK v2 client', () => {
  it('pinned to 2025, speaks it over stdio: the initialize handshake', async () => {
    const connector = start(fixtureCommand('stdio'));
    await connector.ready();
    expect(connector.client?.getProtocolEra()).toBe('legacy');
    expect(connector.client?.getNegotiatedProtocolVersion()).toMatch(/^2025-/);
  });

  it('pinned to 2025, speaks it over Streamable HTTP, with no server/discover probe', async () => {
    const served = await serveMcpHttp({ server: pagedServer });
    servers.push(served);
    const connector = start(served.url);
    await connector.ready();
    expect(connector.client?.getProtocolEra()).toBe('legacy');
    const methods = served.requests.map(
      (request) => (request.body as { method?: string } | undefined)?.method,
    );
    expect(methods[0]).toBe('initialize');
    expect(methods).not.toContain('server/discover');
  });

  it('lists past 64 pages and stops at a cursor seen before, keeping what it listed', async () => {
    const served = await serveMcpHttp({ server: pagedServer });
    servers.push(served);
    const connector = start(served.url);
    await connector.ready();
    expect(connector.state).toBe('connected');
    expect(connector.lists.tools.map((tool) => tool.name)).toEqual(
      Array.from({ length: PAGES }, (_, page) => `tool_${page}`),
    );
  });
});
