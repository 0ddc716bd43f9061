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

/** Kills the fixture with `signal`; resolves with how long the connector stayed `connected`. */
function killAndTime(signal: NodeJS.Signals): Promise<number> {
  const { pid } = fixture ?? {};
  if (pid === undefined || connector === undefined) throw new Error('nothing to kill');
  const watched = connector;
  const left = new Promise<number>((resolve) => {
    const killedAt = performance.now();
    const poll = setInterval(() => {
      if (watched.state !== 'connected') {
        clearInterval(poll);
        resolve(performance.now() - killedAt);
      }
    }, 10);
  });
  process.kill(pid, signal);
  return Promise.race([
    left,
    new Promise<number>((resolve) =>
      setTimeout(() => {
        resolve(Infinity);
      }, 8_000),
    ),
  ]);
}

// A server process that dies takes its GET stream with it: the connector must notice at once,
// not when the next call fails.
describe('an HTTP upstream that is killed', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'leaves connected within two seconds (%s)',
    async (signal) => {
      fixture = await startHttpFixture();
      connector = createConnector(fixture.url.href, { namespace: 'fx' });
      connector.start();
      await connector.ready();
      // The session's GET stream is open once the client is initialized; give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connector.state).toBe('connected');
      expect(await killAndTime(signal)).toBeLessThan(2_000);
    },
  );

  // A stateless server has no GET stream to lose: what dies with it is the kept-alive connection
  // the last request went over.
  it('leaves connected within two seconds when it had no session stream', async () => {
    fixture = await startHttpFixture({ server: fixtureCommand('http-stateless') });
    connector = createConnector(fixture.url.href, { namespace: 'fx' });
    connector.start();
    await connector.ready();
    const answer = await connector.client?.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(answer?.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(connector.state).toBe('connected');
    expect(await killAndTime('SIGKILL')).toBeLessThan(2_000);
  });

  it('leaves connected within two seconds when idle past keep-alive, pinged', async () => {
    fixture = await startHttpFixture({ server: fixtureCommand('http-stateless') });
    connector = createConnector(fixture.url.href, { namespace: 'fx', pingIntervalMs: 500 });
    connector.start();
    await connector.ready();
    // Nothing to wait on: undici closes a connection idle for 4 s, after which no connection
    // could tell of the server's end, only a ping.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(connector.state).toBe('connected');
    expect(await killAndTime('SIGKILL')).toBeLessThan(2_000);
  });
});
