import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  McpServer,
  ResourceTemplate,
  createMcpHandler,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { mcpToolResult } from '@toolplane/toolrun';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readBody, toWebRequest, writeWebResponse } from '../http/fetch.js';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { GatewayServer } from './gateway-server.js';
import { encodeModernResult } from './seam.js';

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

/** A stateless upstream whose `broken://{id}` resources fail with InvalidParams and data. */
async function serveBrokenUpstream(): Promise<{ url: URL; close(): Promise<void> }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'broken', version: '0' });
    server.registerResource(
      'broken',
      new ResourceTemplate('broken://{id}', { list: undefined }),
      { description: 'Never there.' },
      (uri) => {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `nothing at ${uri.href}`, {
          uri: uri.href,
        });
      },
    );
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
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => {
          resolve();
        });
      });
    },
  };
}

describe('an upstream error (SDK v2 ProtocolError in the toolkit) served to a 2025-era client', () => {
  it('keeps its JSON-RPC code, message and data', async () => {
    const upstream = await serveBrokenUpstream();
    const toolkit = createToolkit();
    toolkit.addConnector(upstream.url, { namespace: 'broken' });
    const served = await runToolkit(toolkit);
    const http = await serveHttp(served.toolkit, { port: 0 });
    const seen = new Client({ name: 'sdk-seam-errors', version: '0' });
    try {
      await seen.connect(new StreamableHTTPClientTransport(http.url));
      const error = await seen.readResource({ uri: 'broken://x' }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({
        code: ProtocolErrorCode.InvalidParams,
        data: { uri: 'broken://x' },
      });
      expect((error as ProtocolError).message).toContain('nothing at broken://x');
    } finally {
      await seen.close();
      await http.close();
      await served.stop();
      await upstream.close();
    }
  });
});

describe('encodeModernResult', () => {
  const serverInfo = { name: 'pinned', version: '1' };

  /**
   * `result` as the SDK's 2026-07-28 entry writes it from a gateway server's tools/call handler
   * (which the SDK does not parse again, as it parses other servers' results).
   */
  async function sdkEncoded(result: Record<string, unknown>): Promise<string> {
    const handler = createMcpHandler(
      () => {
        const server = new GatewayServer(serverInfo, { capabilities: { tools: {} } });
        server.setToolCallHandler(() => Promise.resolve(result as CallToolResult));
        return server;
      },
      { legacy: 'reject' },
    );
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const response = await handler.fetch(
      new Request('http://pinned/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'x',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'x', arguments: {}, _meta: envelope },
        }),
      }),
    );
    const body = (await response.json()) as { result: unknown };
    await handler.close();
    return JSON.stringify(body.result);
  }

  it.each([
    ['a plain result', { content: [{ type: 'text', text: 'a' }] }],
    ['a result with _meta', { content: [], _meta: { 'example.com/k': 1 }, isError: true }],
    [
      'a result naming a server already',
      { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'o', version: '0' } } },
    ],
    [
      'an input_required result',
      { resultType: 'input_required', inputRequests: {}, requestState: 's' },
    ],
    ['a complete result that says so', { content: [], resultType: 'complete' }],
  ])('encodes %s key for key as the SDK does', async (_name, result) => {
    expect(JSON.stringify(encodeModernResult(result as CallToolResult, serverInfo))).toBe(
      await sdkEncoded(result),
    );
  });
});
