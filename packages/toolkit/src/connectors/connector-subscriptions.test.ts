import {
  fixtureCommand,
  recordEvents,
  startHttpFixture,
  WATCHED_URI,
  type FixtureMode,
  type HttpFixture,
} from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type ConnectorEvent } from './connector.js';

// A 2026-07-28 server has no resources/subscribe: the connector carries its subscriptions in the
// resourceSubscriptions of its subscriptions/listen stream, so a caller subscribes as in 2025.

const OTHER_URI = 'fixture://other';

const connectors: Connector[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.close()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

async function start(mode: FixtureMode) {
  let source: URL | ReturnType<typeof fixtureCommand> = fixtureCommand(mode);
  if (mode.startsWith('http')) {
    const fixture = await startHttpFixture({ server: fixtureCommand(mode) });
    fixtures.push(fixture);
    source = fixture.url;
  }
  const events = recordEvents<ConnectorEvent>();
  const connector = createConnector(source, { onEvent: events.push });
  connectors.push(connector);
  connector.start();
  await connector.ready();
  const client = connector.client;
  if (client === undefined) throw new Error('not connected');
  const updates = (uri: string) =>
    events.events.filter((event) => event.type === 'resource_updated' && event.uri === uri).length;
  const updated = (uri: string, count: number) =>
    events.waitFor(() => updates(uri) >= count, { timeoutMs: 10_000 });
  const touch = (uri: string) => client.callTool({ name: 'touch', arguments: { uri } });
  return { connector, client, events, updates, updated, touch };
}

describe('Connector resource subscriptions, both eras', () => {
  it.each([
    ['stdio-2026', '2026'],
    ['http-2026', '2026'],
    ['stdio', '2025'],
    ['http', '2025'],
  ] as const)(
    'over %s (%s): subscribe hears updates, unsubscribe narrows to what is left',
    async (mode, era) => {
      const { connector, client, updates, updated, touch } = await start(mode);
      expect(connector.era).toBe(era);
      expect(connector.server?.capabilities.resources?.subscribe).toBe(true);

      await client.subscribeResource({ uri: WATCHED_URI });
      // Set semantics, as resources/subscribe: twice is once.
      await client.subscribeResource({ uri: WATCHED_URI });
      await touch(WATCHED_URI);
      await updated(WATCHED_URI, 1);

      await client.subscribeResource({ uri: OTHER_URI });
      await client.unsubscribeResource({ uri: WATCHED_URI });
      await touch(WATCHED_URI);
      await touch(OTHER_URI);
      // Both go out on one stream in order: once the second is heard, the first would have been.
      await updated(OTHER_URI, 1);
      expect(updates(WATCHED_URI)).toBe(1);
      expect(updates(OTHER_URI)).toBe(1);

      await client.unsubscribeResource({ uri: OTHER_URI });
      // Unsubscribing what is not subscribed is not an error, as in 2025.
      await client.unsubscribeResource({ uri: OTHER_URI });
    },
  );

  it('keeps its subscriptions across a reconnect of a 2026-07-28 server', async () => {
    const { connector, events, updated } = await start('stdio-2026');
    await connector.client?.subscribeResource({ uri: WATCHED_URI });
    const seen = events.events.length;
    process.kill(connector.pid ?? 0, 'SIGKILL');
    await events.waitFor((event) => event.type === 'state_change' && event.state === 'connected', {
      from: seen,
    });
    // The new connection listens for it again, unasked.
    await connector.client?.callTool({ name: 'touch', arguments: { uri: WATCHED_URI } });
    await updated(WATCHED_URI, 1);
  });
});
