import { fixtureCommand, isAlive } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import { isState, useStartedConnectors } from './testing/started-connectors.js';

const connect = useStartedConnectors();

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
