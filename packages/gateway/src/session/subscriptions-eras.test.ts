import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  fixtureCommand,
  recordEvents,
  startHttpFixture,
  WATCHED_URI,
  type HttpFixture,
} from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from '../eras.js';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { gatewayCommand } from '../testing/gateway-command.js';

// Resource updates across the eras: a 2025 client's resources/subscribe toward 2026-07-28
// upstreams (carried by the connector's subscriptions/listen filter), and 2026 clients'
// subscriptions/listen resource filters toward upstreams of either era, over HTTP and stdio.

let upstream: HttpFixture;
let running: RunningToolkit;
let gateway: HttpGateway;
/** The URI the gateway exposes each upstream's watched resource by. */
const exposed = new Map<string, string>();
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startHttpFixture({ server: fixtureCommand('http-2026') });
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'old' });
  toolkit.addConnector(fixtureCommand('stdio-2026'), { namespace: 'new' });
  toolkit.addConnector(upstream.url, { namespace: 'web' });
  running = await runToolkit(toolkit);
  expect(running.toolkit.connectors().map((c) => [c.namespace, c.era])).toEqual([
    ['old', '2025'],
    ['new', '2026'],
    ['web', '2026'],
  ]);
  gateway = await serveHttp(running.toolkit, { port: 0 });
  const client = await connect('legacy', new StreamableHTTPClientTransport(gateway.url));
  const { resources } = await client.listResources();
  for (const namespace of ['old', 'new', 'web']) {
    // Three upstreams list the same URI: the gateway names each by its namespace.
    const uri = resources.find(
      (resource) => resource.uri.includes(namespace) && resource.uri.includes('watched'),
    )?.uri;
    if (uri === undefined) throw new Error(`no watched resource of ${namespace}`);
    exposed.set(namespace, uri);
  }
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await gateway.close();
  await running.stop();
  await upstream.close();
});

async function connect(era: 'legacy' | 'modern', transport: Transport): Promise<Client> {
  const client = new Client(
    { name: `subscriber-${era}`, version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Records the updates and list changes a client hears. */
function hear(client: Client) {
  const heard = recordEvents<string>();
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    heard.push(notification.params.uri);
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    heard.push('tools');
  });
  const count = (what: string) => heard.events.filter((event) => event === what).length;
  return {
    count,
    until: (what: string, times = 1) => heard.waitFor(() => count(what) >= times),
  };
}

function uriOf(namespace: string): string {
  const uri = exposed.get(namespace);
  if (uri === undefined) throw new Error(`no URI for ${namespace}`);
  return uri;
}

describe('a 2025 client subscribing through the gateway', () => {
  it.each(['new', 'web'])(
    'hears the updates of a 2026-07-28 upstream (%s) and unsubscribes',
    async (namespace) => {
      const client = await connect('legacy', new StreamableHTTPClientTransport(gateway.url));
      const heard = hear(client);
      const uri = uriOf(namespace);
      await client.subscribeResource({ uri });
      await client.callTool({ name: `${namespace}__touch`, arguments: {} });
      await heard.until(uri);
      await client.unsubscribeResource({ uri });
      // The old upstream's update goes out after the new one's would: a second subscription on
      // another upstream tells that nothing more came of the first.
      await client.subscribeResource({ uri: uriOf('old') });
      await client.callTool({ name: `${namespace}__touch`, arguments: {} });
      await client.callTool({ name: 'old__touch', arguments: {} });
      await heard.until(uriOf('old'));
      await client.unsubscribeResource({ uri: uriOf('old') });
      expect(heard.count(uri)).toBe(1);
    },
  );
});

describe('a 2026-07-28 client listening through the gateway', () => {
  it('hears, over HTTP, the updates of upstreams of both eras its filter names', async () => {
    const client = await connect('modern', new StreamableHTTPClientTransport(gateway.url));
    expect(client.getProtocolEra()).toBe('modern');
    const heard = hear(client);
    const subscription = await client.listen({
      resourceSubscriptions: [uriOf('old'), uriOf('new'), uriOf('web')],
    });
    expect(subscription.honoredFilter.resourceSubscriptions).toHaveLength(3);
    for (const namespace of ['old', 'new', 'web']) {
      await client.callTool({ name: `${namespace}__touch`, arguments: {} });
      await heard.until(uriOf(namespace));
    }
    await subscription.close();
    expect(await subscription.closed).toBe('local');
  });

  it('hears nothing of a resource its filter does not name', async () => {
    const client = await connect('modern', new StreamableHTTPClientTransport(gateway.url));
    const heard = hear(client);
    const subscription = await client.listen({ resourceSubscriptions: [uriOf('new')] });
    await client.callTool({ name: 'old__touch', arguments: {} });
    await client.callTool({ name: 'new__touch', arguments: {} });
    await heard.until(uriOf('new'));
    expect(heard.count(uriOf('old'))).toBe(0);
    await subscription.close();
  });

  it('takes a hostile filter: thousands of URIs, __proto__, unknown ones, the real one first', async () => {
    const client = await connect('modern', new StreamableHTTPClientTransport(gateway.url));
    const heard = hear(client);
    const many = Array.from({ length: 5_000 }, (_, i) => `nowhere://${String(i)}`);
    const subscription = await client.listen({
      resourceSubscriptions: [uriOf('new'), '__proto__', 'constructor', ...many],
    });
    await client.callTool({ name: 'new__touch', arguments: {} });
    await heard.until(uriOf('new'));
    await subscription.close();
    // And a filter the SDK refuses (a URI that is no string) leaves the gateway serving.
    const refused = await client.listen({ resourceSubscriptions: [42 as unknown as string] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Error);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
  });

  // The second case is the first on a machine so loaded that the 2026 upstream answers the era
  // probe after its bound (1 ms here): it must still be heard as the 2026 server it is.
  it.each([
    ['', undefined],
    [', the 2026 upstream answering the era probe late', 1],
  ])('hears, over stdio, list changes and resource updates of both eras%s', async (_, bound) => {
    const { command, args } = gatewayCommand(
      [
        { namespace: 'old', source: fixtureCommand('stdio') },
        { namespace: 'new', source: fixtureCommand('stdio-2026') },
      ],
      {},
      'stdio',
      bound === undefined ? {} : { connectorDefaults: { eraProbeTimeoutMs: bound } },
    );
    const client = await connect(
      'modern',
      new StdioClientTransport({ command, args, stderr: 'inherit' }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    const heard = hear(client);
    const { resources } = await client.listResources();
    const watched = resources.map((r) => r.uri).filter((uri) => uri.includes('watched'));
    expect(watched).toHaveLength(2);
    const subscription = await client.listen({
      toolsListChanged: true,
      resourceSubscriptions: watched,
    });
    await client.callTool({ name: 'old__touch', arguments: {} });
    await client.callTool({ name: 'new__touch', arguments: {} });
    for (const uri of watched) await heard.until(uri);
    await client.callTool({ name: 'new__define-tool', arguments: { name: 'added_late' } });
    await heard.until('tools');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('new__added_late');
    await subscription.close();
  });
});

it('serves the watched resource of each upstream by its own URI', () => {
  expect(new Set(exposed.values()).size).toBe(3);
  expect([...exposed.values()].every((uri) => uri !== WATCHED_URI)).toBe(true);
});
