import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector, type ConnectorEvent } from './connector.js';

// The heartbeat (`pingIntervalMs`, which `toolplane serve` sets by default) checks that the
// server is still there. It must not itself end a healthy connection: a 2026-07-28 connection has
// no `ping`, and a check that fails closes the connection, failing its calls in flight.

let fixture: HttpFixture | undefined;
let connector: Connector | undefined;
afterEach(async () => {
  await connector?.close();
  connector = undefined;
  await fixture?.close();
  fixture = undefined;
});

describe('the connector heartbeat', () => {
  it.each(['stdio', 'stdio-2026', 'http-2026'] as const)(
    'keeps a healthy connection, and the calls on it, across its checks (%s)',
    async (mode) => {
      let source: URL | ReturnType<typeof fixtureCommand> = fixtureCommand(mode);
      if (mode.startsWith('http')) {
        fixture = await startHttpFixture({ server: fixtureCommand(mode) });
        source = fixture.url;
      }
      const events: ConnectorEvent[] = [];
      connector = createConnector(source, {
        namespace: 'fx',
        pingIntervalMs: 20,
        onEvent: (event) => events.push(event),
      });
      connector.start();
      await connector.ready();
      // A call that spans many checks.
      const answer = await connector.client?.callTool({
        name: 'slow',
        arguments: { ms: 400, label: `heartbeat-${mode}` },
      });
      expect(answer?.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(connector.state).toBe('connected');
      const states = events.flatMap((event) =>
        event.type === 'state_change' ? [event.state] : [],
      );
      expect(states).not.toContain('disconnected');
    },
  );
});
