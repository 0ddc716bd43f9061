import { createRequire } from 'node:module';
import { createMCPClient } from '@ai-sdk/mcp';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPClient } from '@mastra/mcp';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { recordEvents, WATCHED_URI } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { useHttpGateway } from './testing/http-gateway.js';

// Third-party MCP clients against the gateway, now that it speaks 2026-07-28 next to 2025: which
// era each negotiates, a list, a call, and a list change heard where the client can hear one.

const require = createRequire(import.meta.url);

const gateway = useHttpGateway(useFixtureToolkit());
/** Each POST the gateway got: its JSON-RPC method and MCP-Protocol-Version header. */
const posts: { method: unknown; version: string | undefined; client: string | undefined }[] = [];

/** A fetch that records what a client sends the gateway. */
const recordingFetch: typeof fetch = async (input, init) => {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
  const headers = new Headers(init?.headers);
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    posts.push({
      method: (message as { method?: unknown } | undefined)?.method,
      version: headers.get('mcp-protocol-version') ?? undefined,
      client: headers.get('user-agent') ?? undefined,
    });
  }
  return fetch(input, init);
};

function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as { type?: string; text?: string }[];
  return blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
}

describe('@ai-sdk/mcp 2.x', () => {
  it('probes with server/discover, speaks 2026-07-28, lists and calls', async () => {
    const seen = posts.length;
    const client = await createMCPClient({
      transport: { type: 'http', url: gateway.url.href, fetch: recordingFetch },
    });
    try {
      const sent = posts.slice(seen);
      expect(sent[0]?.method).toBe('server/discover');
      expect(sent.map((post) => post.method)).not.toContain('initialize');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('fx__add');
      const result = await client.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } });
      expect(result.structuredContent).toEqual({ sum: 5 });
      const later = posts.slice(seen).filter((post) => post.method === 'tools/call');
      expect(later.at(-1)?.version).toBe(MODERN_PROTOCOL_VERSION);
      // The AI SDK's MCP client has no list-change API (it lists afresh when asked).
      const toolSet = await client.tools();
      expect(Object.keys(toolSet)).toContain('fx__echo');
    } finally {
      await client.close();
    }
  });
});

/**
 * Runs a Mastra tool as an agent would. Its context type asks for the observability an agent
 * carries (`observe`); the MCP tools read none of it, so a bare call passes an empty one.
 */
function run(tool: { execute?: unknown } | undefined, input: unknown): Promise<unknown> {
  const execute = tool?.execute as
    ((input: unknown, context: object) => Promise<unknown>) | undefined;
  if (execute === undefined) throw new Error('no such tool');
  return execute(input, {});
}

describe('@mastra/mcp 2.x', () => {
  it('probes, speaks 2026-07-28, lists, calls and hears a resource update it subscribed to', async () => {
    const seen = posts.length;
    const mcp = new MCPClient({
      id: 'toolplane-gateway-test',
      servers: { gw: { url: gateway.url, fetch: recordingFetch } },
    });
    try {
      const tools = await mcp.listTools();
      const sent = posts.slice(seen);
      expect(sent[0]?.method).toBe('server/discover');
      expect(sent.map((post) => post.method)).not.toContain('initialize');
      expect(sent.filter((post) => post.method === 'tools/list').at(-1)?.version).toBe(
        MODERN_PROTOCOL_VERSION,
      );
      const add = tools['gw_fx__add'];
      expect(add).toBeDefined();
      const sum = await run(add, { a: 2, b: 3 });
      expect(JSON.stringify(sum)).toContain('5');

      // 2026-07-28 has no resources/subscribe: Mastra names the URI in its listen filter.
      const updated = recordEvents<string>();
      await mcp.resources.onUpdated('gw', (params) => {
        updated.push(params.uri);
      });
      await mcp.resources.subscribe('gw', WATCHED_URI);
      expect(posts.slice(seen).map((post) => post.method)).toContain('subscriptions/listen');
      await run(tools['gw_fx__touch'], {});
      await updated.waitFor((uri) => uri === WATCHED_URI);
      await mcp.resources.unsubscribe('gw', WATCHED_URI);
    } finally {
      await mcp.disconnect();
    }
  });
});

describe('@langchain/mcp-adapters 1.x', () => {
  it('speaks 2025-11-25 (on SDK v1), lists, calls and hears a tool list change', async () => {
    const changed = recordEvents<string>();
    const client = new MultiServerMCPClient({
      mcpServers: { gw: { transport: 'http', url: gateway.url.href } },
      onToolsListChanged: ({ server }) => {
        changed.push(server);
      },
      useStandardContentBlocks: true,
    });
    try {
      const tools = await client.getTools();
      const add = tools.find((tool) => tool.name === 'fx__add');
      expect(add).toBeDefined();
      const answer: unknown = await add?.invoke({ a: 20, b: 22 });
      expect(JSON.stringify(answer)).toContain('42');
      const mcp = await client.getClient('gw');
      // Built on SDK v1, it speaks only the 2025 era: the gateway serves it a session.
      const transport = mcp?.transport as { protocolVersion?: string; sessionId?: string };
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(transport.sessionId).toBeDefined();
      const defineTool = tools.find((tool) => tool.name === 'fx__define-tool');
      await defineTool?.invoke({ name: 'added_for_langchain' });
      await changed.waitFor((server) => server === 'gw');
    } finally {
      await client.close();
    }
  });
});

describe('mcp-remote 0.15', () => {
  it('proxies a stdio client to the gateway: lists, calls and passes a list change on', async () => {
    const client = new Client({ name: 'behind-mcp-remote', version: '0' });
    const changed = recordEvents<string>();
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed.push('tools');
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          require.resolve('mcp-remote/dist/proxy.js'),
          gateway.url.href,
          '--transport',
          'http-only',
          '--silent',
        ],
        stderr: 'ignore',
      }),
    );
    try {
      // mcp-remote is built on SDK v1: the client side it offers speaks the 2025 era.
      expect(client.getProtocolEra()).toBe('legacy');
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('fx__echo');
      const echoed = await client.callTool({ name: 'fx__echo', arguments: { text: 'remote' } });
      expect(textOf(echoed)).toBe('remote');
      await client.callTool({ name: 'fx__define-tool', arguments: { name: 'added_for_remote' } });
      await changed.waitFor((what) => what === 'tools');
    } finally {
      await client.close();
    }
  }, 60_000);
});
