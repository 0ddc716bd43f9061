import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector } from './connector.js';
import { httpAgent } from './transport/http-agent.js';

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

/**
 * Resolves once the connectors' pool closes a connection to `origin` that sat idle past its
 * keep-alive time (undici's own close, `UND_ERR_INFO`); rejects after a bound.
 */
async function closedIdle(origin: string): Promise<void> {
  const agent = await httpAgent();
  return new Promise((resolve, reject) => {
    const onDisconnect = (at: URL, _targets: unknown, error: Error & { code?: string }): void => {
      if (new URL(at).origin !== origin || error.code !== 'UND_ERR_INFO') return;
      finish();
      resolve();
    };
    const finish = (): void => {
      clearTimeout(timer);
      agent.off('disconnect', onDisconnect);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`no idle connection to ${origin} closed in time`));
    }, 15_000);
    agent.on('disconnect', onDisconnect);
  });
}

/** Resolves once a GET to `origin` is answered 200: the session's stream is open. */
function sessionStreamOpen(origin: string): Promise<void> {
  return new Promise((resolve) => {
    const onHeaders = (message: unknown): void => {
      const { request, response } = message as {
        request: { method: string; origin: string };
        response: { statusCode: number };
      };
      if (request.method !== 'GET' || new URL(request.origin).origin !== origin) return;
      if (response.statusCode !== 200) return;
      unsubscribe('undici:request:headers', onHeaders);
      resolve();
    };
    subscribe('undici:request:headers', onHeaders);
  });
}

// A server process that dies takes its GET stream with it: the connector must notice at once,
// not when the next call fails.
describe('an HTTP upstream that is killed', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'leaves connected with no call made (%s)',
    async (signal) => {
      fixture = await startHttpFixture();
      connector = createConnector(fixture.url.href, { namespace: 'fx' });
      const streamOpen = sessionStreamOpen(fixture.url.origin);
      connector.start();
      await connector.ready();
      // The session's GET stream opens once the client is initialized.
      await streamOpen;
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
    const idleClosed = closedIdle(fixture.url.origin);
    connector.start();
    await connector.ready();
    // undici closes a connection idle for 4 s, after which no connection could tell of the
    // server's end, only a ping.
    await idleClosed;
    expect(connector.state).toBe('connected');
    await killAndLeave('SIGKILL');
  });
});
