import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
} from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from '../eras.js';
import { serveHttp, type HttpGateway } from '../http/serve.js';

// Roots across the eras: 2026-07-28 asks for them in an input_required round of the call that
// needs them; 2025 with a roots/list request. Each direction through the gateway, with upstreams
// of both eras.

let running: RunningToolkit;
let gateway: HttpGateway;
const clients: Client[] = [];

beforeAll(async () => {
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'old' });
  toolkit.addConnector(fixtureCommand('stdio-2026'), { namespace: 'new' });
  running = await runToolkit(toolkit);
  gateway = await serveHttp(running.toolkit, { port: 0 });
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await gateway.close();
  await running.stop();
});

async function connect(era: 'legacy' | 'modern', root: string | undefined): Promise<Client> {
  const capabilities: ClientCapabilities = root === undefined ? {} : { roots: {} };
  const client = new Client(
    { name: `rooted-${era}`, version: '0' },
    era === 'modern'
      ? { capabilities, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } }
      : { capabilities },
  );
  if (root !== undefined) {
    client.setRequestHandler('roots/list', () => ({ roots: [{ uri: root, name: 'root' }] }));
  }
  await client.connect(new StreamableHTTPClientTransport(gateway.url));
  clients.push(client);
  return client;
}

function rootsOf(result: CallToolResult): unknown {
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return JSON.parse(text);
}

describe("a client's roots through the gateway, across the eras", () => {
  it.each([
    ['legacy', 'new'],
    ['modern', 'old'],
    ['modern', 'new'],
  ] as const)('a %s client hands its roots to the %s upstream during a call', async (era, ns) => {
    const root = `file:///projects/${era}-${ns}`;
    const client = await connect(era, root);
    expect(client.getProtocolEra()).toBe(era);
    const result = await client.callTool({ name: `${ns}__roots`, arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(rootsOf(result)).toEqual([{ uri: root, name: 'root' }]);
  });

  it('a 2026 client without roots gives a 2025 upstream none, and the call goes on', async () => {
    const client = await connect('modern', undefined);
    const result = await client.callTool({ name: 'old__roots', arguments: {} });
    expect(rootsOf(result)).toEqual([]);
  });
});
