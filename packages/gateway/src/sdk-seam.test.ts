import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { mcpToolResult } from '@toolplane/toolrun';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from './http.js';

let running: RunningToolkit;
let gateway: HttpGateway;
let client: Client;

beforeAll(async () => {
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'listed',
        description: 'Answers with a list as structured content, as 2026-07-28 allows.',
        input: z.object({ text: z.boolean() }),
        run: ({ text }) =>
          mcpToolResult({
            content: text ? [{ type: 'text', text: 'one, two' }] : [],
            structuredContent: ['one', 'two'],
          }),
      }),
      defineTool({
        name: 'keyed',
        description: 'Answers with an object as structured content.',
        input: z.object({}),
        run: () => mcpToolResult({ content: [], structuredContent: { n: 2 } }),
      }),
    ],
  });
  running = await runToolkit(toolkit);
  gateway = await serveHttp(running.toolkit, { port: 0 });
  client = new Client({ name: 'sdk-seam', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(gateway.url));
});

afterAll(async () => {
  await client.close();
  await gateway.close();
  await running.stop();
});

describe('tools/call results typed by SDK v2, served to a 2025-era client', () => {
  it('leave out structuredContent that is not an object, telling it as text when nothing else does', async () => {
    const bare = await client.callTool({ name: 'builtin__listed', arguments: { text: false } });
    expect(bare).not.toHaveProperty('structuredContent');
    expect(bare.content).toEqual([{ type: 'text', text: '["one","two"]' }]);

    const told = await client.callTool({ name: 'builtin__listed', arguments: { text: true } });
    expect(told).not.toHaveProperty('structuredContent');
    expect(told.content).toEqual([{ type: 'text', text: 'one, two' }]);
  });

  it('keep structuredContent that is an object as it is', async () => {
    const result = await client.callTool({ name: 'builtin__keyed', arguments: {} });
    expect(result.structuredContent).toEqual({ n: 2 });
    expect(result.content).toEqual([]);
  });
});
