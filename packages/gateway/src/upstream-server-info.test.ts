import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { serveHttp, type HttpGateway } from './http/serve.js';

// A 2026-07-28 upstream names itself in every result's `_meta`. That names the hop between the
// gateway and the upstream: a client of the gateway hears the gateway's own name (2026), or
// none (2025, whose era has no such key), as it does for prompts and resources.
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

let running: RunningToolkit;
let gateway: HttpGateway;

beforeAll(async () => {
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio-2026'), { namespace: 'fx' });
  running = await runToolkit(toolkit);
  gateway = await serveHttp(running.toolkit, { port: 0 });
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
});

async function connect(era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: `server-info-${era}`, version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(gateway.url));
  return client;
}

describe('a 2026-07-28 upstream tool result relayed', () => {
  it.each([
    ['echo', { text: 'hi' }],
    ['report-error', { message: 'refused' }],
  ] as const)('names the gateway, not the upstream, to a 2026 client (%s)', async (tool, args) => {
    const client = await connect('modern');
    try {
      const [result, prompt] = await Promise.all([
        client.callTool({ name: `fx__${tool}`, arguments: args }),
        client.getPrompt({ name: 'fx__echo', arguments: { text: 'hi' } }),
      ]);
      expect(result._meta?.[SERVER_INFO]).toEqual(prompt._meta?.[SERVER_INFO]);
      expect(result._meta?.[SERVER_INFO]).not.toMatchObject({ name: 'toolplane-fixture' });
    } finally {
      await client.close();
    }
  });

  it.each([
    ['echo', { text: 'hi' }],
    ['report-error', { message: 'refused' }],
  ] as const)('carries no 2026 server identity to a 2025 client (%s)', async (tool, args) => {
    const client = await connect('legacy');
    try {
      const result = await client.callTool({ name: `fx__${tool}`, arguments: args });
      expect(result._meta ?? {}).not.toHaveProperty([SERVER_INFO]);
    } finally {
      await client.close();
    }
  });
});
