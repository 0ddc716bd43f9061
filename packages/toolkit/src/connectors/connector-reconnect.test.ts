import { fixtureCommand, isAlive, recordEvents } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createConnector,
  type Connector,
  type ConnectorEvent,
  type ConnectorOptions,
} from './connector.js';

const open: Connector[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connector) => connector.close()));
});

function connect(source: Parameters<typeof createConnector>[0], options: ConnectorOptions = {}) {
  const log = recordEvents<ConnectorEvent>();
  const connector = createConnector(source, { ...options, onEvent: log.push });
  open.push(connector);
  connector.start();
  return { connector, log };
}

const isState = (state: string) => (event: ConnectorEvent) =>
  event.type === 'state_change' && event.state === state;

describe('Connector.reconnect', () => {
  it('drops a live connection and connects again with a new child', async () => {
    const { connector, log } = connect(fixtureCommand('stdio'), { namespace: 'fixture' });
    await connector.ready();
    const before = connector.pid;
    const from = log.events.length;
    connector.reconnect();
    await log.waitFor(isState('connected'), { from });
    expect(connector.pid).not.toBe(before);
    expect(before === undefined ? false : isAlive(before)).toBe(false);
    expect(connector.lists.tools.map((tool) => tool.name)).toContain('echo');
  });

  it('cuts a backoff wait short: a failed server is tried again at once', async () => {
    // An hour's backoff: only reconnect() can bring the next attempt within the test.
    const { connector, log } = connect(
      { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      { namespace: 'broken', backoff: { initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 } },
    );
    await log.waitFor(isState('failed'));
    const from = log.events.length;
    connector.reconnect();
    await log.waitFor(isState('connecting'), { from });
    await log.waitFor(isState('failed'), { from });
  });

  it('throws connector_unavailable once closed', async () => {
    const { connector } = connect(fixtureCommand('stdio'), { namespace: 'fixture' });
    await connector.close();
    expect(() => {
      connector.reconnect();
    }).toThrow(expect.objectContaining({ code: 'connector_unavailable' }));
  });
});
