import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY } from './call-results.js';
import { useHttpGateway } from './testing/http-gateway.js';

// `mode: 'code'` over Streamable HTTP on 127.0.0.1, with the fixture MCP server as a stdio
// upstream: the gateway lists exactly search_tools, describe_tool and run_code, and a program's
// calls go the way a plain tools/call would (the config's filter holding).

const toolkit = useFixtureToolkit();
const gateway = useHttpGateway(toolkit, { mode: 'code', filter: { fx: { deny: ['fail'] } } });
let client: Client;
beforeAll(async () => {
  client = new Client({ name: 'code-mode-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(gateway.url));
});
afterAll(async () => {
  await client.close();
});

function text(result: unknown): string {
  return (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');
}

describe('gateway mode: code', () => {
  it('lists only search_tools, describe_tool and run_code', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tool', 'run_code']);
  });

  it('searches the tools a program may call, without the filtered ones', async () => {
    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'fail', limit: 50 },
    });
    const ids = (found.structuredContent as { results: { id: string }[] }).results.map((r) => r.id);
    expect(ids).not.toContain('fx:fail');
    const all = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'add numbers' },
    });
    expect(all.structuredContent).toMatchObject({
      results: expect.arrayContaining([
        expect.objectContaining({ id: 'fx:add', call: 'tools.fx.add' }),
      ]),
    });
  });

  it('describes a tool with its TypeScript declaration', async () => {
    const described = await client.callTool({ name: 'describe_tool', arguments: { id: 'fx:add' } });
    expect(text(described)).toContain('add(args: {');
  });

  it('runs a program whose calls reach the upstream, and hides filtered tools', async () => {
    const ran = await client.callTool({
      name: 'run_code',
      arguments: {
        code: [
          "console.log('adding');",
          'const { sum } = await tools.fx.add({ a: 20, b: 22 });',
          'return { sum, fail: typeof tools.fx.fail };',
        ].join('\n'),
      },
    });
    expect(ran.isError).toBeUndefined();
    expect(ran.structuredContent).toEqual({ sum: 42, fail: 'undefined' });
    expect(text(ran)).toContain('[log] adding');
  });

  it("gives a program a failed call's own code, as the library and the CLI do", async () => {
    const ran = await client.callTool({
      name: 'run_code',
      arguments: {
        code: [
          'try { await tools.fx.add({ a: 1 }); } catch (e) { return { code: e.code, message: e.message }; }',
          "return 'no error';",
        ].join('\n'),
      },
    });
    expect(ran.isError).toBeUndefined();
    const caught = ran.structuredContent as { code: string; message: string };
    expect(caught.code).toBe('validation');
    expect(caught.message).not.toMatch(/^validation:/);
  });

  it('answers a failing program with isError and its code', async () => {
    const ran = await client.callTool({
      name: 'run_code',
      arguments: { code: 'throw new Error("nope");' },
    });
    expect(ran.isError).toBe(true);
    expect(text(ran)).toContain('nope');
    // Where the gateway's other failures carry it, not in a member MCP does not define.
    expect(ran._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'execution', toolId: 'run_code' });
    expect(ran).not.toHaveProperty('code');
  });
});

describe("gateway mode: code, one caller's share of the sandboxes", () => {
  const shared = useHttpGateway(toolkit, {
    mode: 'code',
    codeMode: { maxConcurrentRuns: 2, timeoutMs: 20_000 },
    // The test plays a proxy forwarding two clients, each a source (a caller) of its own.
    trustedProxies: ['127.0.0.1'],
  });
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });
  const session = async (client: string): Promise<Client> => {
    const made = new Client({ name: 'code-mode-share', version: '0.0.0' });
    const headers = { 'x-forwarded-for': client };
    await made.connect(new StreamableHTTPClientTransport(shared.url, { requestInit: { headers } }));
    clients.push(made);
    return made;
  };

  it('refuses a caller past its half with rate_limited, in any of its sessions, and still runs another caller', async () => {
    const greedy = await session('192.0.2.1');
    const sibling = await session('192.0.2.1');
    const other = await session('192.0.2.2');
    const { resources } = await greedy.listResources();
    const watched = resources.find((r) => r.uri.includes('watched'))?.uri;
    expect(watched).toBeDefined();
    await greedy.subscribeResource({ uri: watched! });
    const touched = new Promise<void>((resolve) => {
      greedy.setNotificationHandler('notifications/resources/updated', () => {
        resolve();
      });
    });
    const stop = new AbortController();
    // Holds its sandbox once it has touched the watched resource (the marker) until stopped.
    const holding = greedy
      .callTool(
        { name: 'run_code', arguments: { code: 'await tools.fx.touch({});\nwhile (true) {}' } },
        { signal: stop.signal },
      )
      .catch(() => undefined);
    await touched;
    const refused = await greedy.callTool({ name: 'run_code', arguments: { code: 'return 1;' } });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'rate_limited' });
    // A new session of the same client is no new share.
    const again = await sibling.callTool({ name: 'run_code', arguments: { code: 'return 1;' } });
    expect(again._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'rate_limited' });
    const served = await other.callTool({ name: 'run_code', arguments: { code: 'return 1;' } });
    expect(served.isError).toBeUndefined();
    expect(text(served)).toBe('1');
    stop.abort();
    await holding;
  });
});
