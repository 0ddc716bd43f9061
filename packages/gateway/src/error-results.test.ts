import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { ERROR_META_KEY } from './server.js';

const PNG = 'iVBORw0KGgo=';
const FAILED: CallToolResult = {
  isError: true,
  content: [
    { type: 'text', text: 'first' },
    { type: 'text', text: 'second' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ],
  structuredContent: { reason: 'upstream said no' },
  _meta: { 'example.com/trace': 'abc' },
};

// The server's own -32000 (JSON-RPC's implementation-defined range), not a lost connection.
const REFUSAL = { code: -32000, message: 'quota exceeded for k-77', data: { retryAfter: 30 } };

// An upstream over stdio (plain JSON-RPC, no SDK) whose one tool fails with several blocks.
const UPSTREAM = `
const failed = ${JSON.stringify(FAILED)};
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === undefined) continue;
    const reply = (body) =>
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }) + '\\n');
    if (message.method === 'initialize') {
      reply({ result: { protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} }, serverInfo: { name: 'failing', version: '1.0.0' } } });
    } else if (message.method === 'tools/list') {
      reply({ result: { tools: [{ name: 'fail', inputSchema: { type: 'object' } },
        { name: 'refuse', inputSchema: { type: 'object' } }] } });
    } else if (message.method === 'tools/call' && message.params.name === 'refuse') {
      reply({ error: ${JSON.stringify(REFUSAL)} });
    } else if (message.method === 'tools/call') {
      reply({ result: failed });
    } else {
      reply({ error: { code: -32601, message: 'no ' + message.method } });
    }
  }
});
`;

let running: RunningToolkit;
let gateway: HttpGateway;

beforeAll(async () => {
  const toolkit = createToolkit();
  toolkit.addConnector({ command: process.execPath, args: ['-e', UPSTREAM] }, { namespace: 'up' });
  running = await runToolkit(toolkit);
  gateway = await serveHttp(running.toolkit, { port: 0 });
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
});

describe('upstream error results', () => {
  it('reach the client as the upstream sent them, toolplane’s error only in _meta', async () => {
    const client = new Client({ name: 'error-results', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    try {
      const result = await client.callTool({ name: 'up__fail', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result.content).toEqual(FAILED.content);
      expect(result.structuredContent).toEqual(FAILED.structuredContent);
      expect(result._meta).toMatchObject({
        'example.com/trace': 'abc',
        [ERROR_META_KEY]: { code: 'execution', toolId: 'up:fail' },
      });
      // The gateway's own refusals say what was wrong, with no prefix of the SDK's.
      const refusal = client.callTool({ name: 'up__nothing', arguments: {} });
      await expect(refusal).rejects.toThrow(/^no tool "up__nothing"; tools\/list names them$/);
      await expect(refusal).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
});

describe("an upstream's own JSON-RPC error", () => {
  it('reaches the client with its code, message and data, -32000 included', async () => {
    const client = new Client({ name: 'error-results', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    try {
      const call = client.callTool({ name: 'up__refuse', arguments: {} });
      await expect(call).rejects.toMatchObject(REFUSAL);
      // The upstream is still there: its error was an answer, not a lost connection.
      expect((await client.callTool({ name: 'up__fail', arguments: {} })).isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('a call of a tool no server lists', () => {
  it('says why when its server is not connected, and -32602 otherwise', async () => {
    // A server that exits before answering: never connected, its tools never listed.
    const down = running.toolkit.addConnector(
      { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      { namespace: 'down' },
    );
    const client = new Client({ name: 'error-results', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    try {
      for (let i = 0; i < 200; i++) {
        const status = running.toolkit.connectors().find((c) => c.namespace === down);
        if (status?.error !== undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const result = await client.callTool({ name: 'down__anything', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result._meta).toMatchObject({
        [ERROR_META_KEY]: { code: 'connector_unavailable', toolId: 'down:anything' },
      });
      expect(JSON.stringify(result.content)).toContain('MCP server \\"down\\" is not connected');
      // A connected server without the tool, and a namespace no server has: unknown tools.
      for (const name of ['up__nothing', 'nowhere__x', 'down', '__down']) {
        await expect(client.callTool({ name, arguments: {} })).rejects.toMatchObject({
          code: -32602,
        });
      }
    } finally {
      await client.close();
      await running.toolkit.removeConnector(down);
    }
  });
});
