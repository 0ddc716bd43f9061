import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEverything, type EverythingGateway } from '../testing/everything.js';

// server-everything lists demo://resource/static/... and offers the dynamic ones by template only.
const DYNAMIC = 'demo://resource/dynamic/text/1';

describe('resource subscriptions through the gateway', () => {
  let gateway: EverythingGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    gateway = await serveEverything();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway.close();
  });

  async function connect(): Promise<{ client: Client; updates: string[] }> {
    const client = new Client({ name: 'subscriber', version: '0.0.0' });
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params.uri);
    });
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    clients.push(client);
    return { client, updates };
  }

  async function until(check: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('not in time');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('subscribes to a URI only a template names, and relays its updates', async () => {
    const { client, updates } = await connect();
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).not.toContain(DYNAMIC);
    // Reading it works through the gateway, so subscribing must too.
    const read = await client.readResource({ uri: DYNAMIC });
    expect(read.contents[0]?.uri).toBe(DYNAMIC);

    await client.subscribeResource({ uri: DYNAMIC });
    // The upstream sends an update for every subscription at once when updates are switched on.
    await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await until(() => updates.includes(DYNAMIC));

    await client.unsubscribeResource({ uri: DYNAMIC });
    await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  });

  it('keeps the upstream subscription until the last subscriber leaves', async () => {
    const first = await connect();
    const second = await connect();
    await first.client.subscribeResource({ uri: DYNAMIC });
    await second.client.subscribeResource({ uri: DYNAMIC });
    await first.client.unsubscribeResource({ uri: DYNAMIC });

    await second.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await until(() => second.updates.includes(DYNAMIC));
    expect(first.updates).toEqual([]);
    await second.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  });

  it('refuses a URI no resource and no template names with -32602', async () => {
    const { client } = await connect();
    const refused = await client.subscribeResource({ uri: 'nowhere://at/all' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ProtocolError);
    expect((refused as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams);
    expect((refused as ProtocolError).message).toContain('nowhere://at/all');
    // Unsubscribing from what was never subscribed is not an error.
    await expect(client.unsubscribeResource({ uri: 'nowhere://at/all' })).resolves.toEqual({});
  });
});
