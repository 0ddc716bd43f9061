import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector } from './connector.js';

let fixture: HttpFixture | undefined;
let connector: Connector | undefined;
afterEach(async () => {
  await connector?.close();
  connector = undefined;
  await fixture?.close();
  fixture = undefined;
});

/**
 * Kills the fixture with `signal` and resolves once the connector has left `connected` with no
 * call made; rejects after a bound that only keeps a regression from hanging the run (how soon
 * it leaves is a measurement, not asserted here).
 */
async function killAndLeave(signal: NodeJS.Signals): Promise<void> {
  const { pid } = fixture ?? {};
  if (pid === undefined || connector === undefined) throw new Error('nothing to kill');
  const watched = connector;
  process.kill(pid, signal);
  await expect.poll(() => watched.state, { timeout: 8_000, interval: 10 }).not.toBe('connected');
}

// A server process that dies takes its GET stream with it: the connector must notice at once,
// not when the next call fails.
describe('an HTTP upstream that is killed', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'leaves connected with no call made (%s)',
    async (signal) => {
      fixture = await startHttpFixture();
      connector = createConnector(fixture.url.href, { namespace: 'fx' });
      connector.start();
      await connector.ready();
      // The session's GET stream is open once the client is initialized; give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connector.state).toBe('connected');
      await killAndLeave(signal);
    },
  );

  // A stateless server has no GET stream to lose: what dies with it is the kept-alive connection
  // the last request went over.
  it('leaves connected with no call made when it had no session stream', async () => {
    fixture = await startHttpFixture({ server: fixtureCommand('http-stateless') });
    connector = createConnector(fixture.url.href, { namespace: 'fx' });
    connector.start();
    await connector.ready();
    const answer = await connector.client?.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(answer?.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(connector.state).toBe('connected');
    await killAndLeave('SIGKILL');
  });

  it('leaves connected with no call made when idle past keep-alive, pinged', async () => {
    fixture = await startHttpFixture({ server: fixtureCommand('http-stateless') });
    connector = createConnector(fixture.url.href, { namespace: 'fx', pingIntervalMs: 500 });
    connector.start();
    await connector.ready();
    // Nothing to wait on: undici closes a connection idle for 4 s, after which no connection
    // could tell of the server's end, only a ping.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(connector.state).toBe('connected');
    await killAndLeave('SIGKILL');
  });
});
