import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommand } from './testing/gateway-command.js';

describe('serveStdio', () => {
  let client: Client;
  let transport: StdioClientTransport;
  beforeAll(async () => {
    const { command, args } = gatewayCommand([
      { namespace: 'fx', source: fixtureCommand('stdio') },
    ]);
    transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
    client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  it('serves the upstream tools from a gateway child process', async () => {
    expect(transport.pid).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fx__add', 'fx__slow']));
    const result = await client.callTool({ name: 'fx__add', arguments: { a: 5, b: 6 } });
    expect(result.structuredContent).toEqual({ sum: 11 });
  });

  it('relays progress and a cancel through two stdio hops', async () => {
    const seen: number[] = [];
    // The SDK client drops a progress notification that shares a read with the result
    // (modelcontextprotocol/typescript-sdk#2580); the last step comes just before the result, so
    // only the spaced-out steps before it are certain to arrive.
    await client.callTool(
      { name: 'fx__progress', arguments: { steps: 3, delayMs: 20 } },
      undefined,
      { onprogress: (event) => seen.push(event.progress) },
    );
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual([1, 2, 3].slice(0, seen.length));
    const controller = new AbortController();
    await new Promise<void>((resolve) => {
      client
        .callTool({ name: 'fx__slow', arguments: { ms: 30_000, label: 'stdio-gw' } }, undefined, {
          signal: controller.signal,
          onprogress: () => {
            resolve();
          },
        })
        .catch(() => undefined);
    });
    controller.abort();
    const result = await client.callTool({
      name: 'fx__wait-cancelled',
      arguments: { label: 'stdio-gw', timeoutMs: 5000 },
    });
    expect(result.structuredContent).toEqual({ cancelled: true });
  });

  it('lists and renders the upstream prompt and resource', async () => {
    const prompt = await client.getPrompt({ name: 'fx__echo', arguments: { text: 'x' } });
    expect(JSON.stringify(prompt.messages)).toContain('Repeat after me: x');
    const readme = await client.readResource({ uri: 'fixture://readme' });
    expect(readme.contents[0]).toMatchObject({ text: '# Fixture\n' });
  });
});
