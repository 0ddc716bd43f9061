/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era features (logging, sampling, roots,
   initialize-scoped client identity), bridged for as long as clients and servers speak them */
import { Client, StreamableHTTPClientTransport, type Root } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEverything, type EverythingGateway } from '../testing/everything.js';

describe("a client's roots through the gateway", () => {
  let gateway: EverythingGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    gateway = await serveEverything();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway.close();
  });

  /** A client whose roots are whatever `roots.current` holds when asked. */
  async function connect(roots: { current: Root[] } | undefined): Promise<Client> {
    const client = new Client(
      { name: 'rooted', version: '0.0.0' },
      { capabilities: roots === undefined ? {} : { roots: { listChanged: true } } },
    );
    if (roots !== undefined) {
      client.setRequestHandler('roots/list', () => ({ roots: roots.current }));
    }
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    clients.push(client);
    return client;
  }

  async function rootsSeen(client: Client): Promise<string> {
    const result = await client.callTool({ name: 'get-roots-list' });
    return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  }

  async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('not in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('offers the upstream tools that need roots, and passes the client roots and their changes on', async () => {
    const roots = { current: [{ uri: 'file:///work/alpha', name: 'alpha' }] };
    const client = await connect(roots);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('get-roots-list');
    await until(async () => (await rootsSeen(client)).includes('file:///work/alpha'));

    roots.current = [
      { uri: 'file:///work/beta', name: 'beta' },
      { uri: 'file:///work/gamma', name: 'gamma' },
    ];
    await client.sendRootsListChanged();
    await until(async () => (await rootsSeen(client)).includes('file:///work/gamma'));
    expect(await rootsSeen(client)).not.toContain('file:///work/alpha');
    // Two waits of up to 30 s each: the test's own bound must not cut them short under load.
  }, 70_000);

  it("tells the upstream when a call comes from another session, so it never sees the last one's roots", async () => {
    const mine = await connect({ current: [{ uri: 'file:///projects/mine', name: 'mine' }] });
    await until(async () => (await rootsSeen(mine)).includes('file:///projects/mine'));
    // A client without roots calls next: the shared upstream asks again, and hears none.
    const other = await connect(undefined);
    await until(async () => !(await rootsSeen(other)).includes('file:///projects/mine'));
    await until(async () => (await rootsSeen(mine)).includes('file:///projects/mine'));
  }, 70_000);

  it('answers no roots for a session whose client has none, instead of failing', async () => {
    const client = await connect(undefined);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('get-roots-list');
    const result = await client.callTool({ name: 'get-roots-list' });
    expect(result.isError).not.toBe(true);
  });
});
