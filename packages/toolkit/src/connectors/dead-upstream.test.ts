import { startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, type Connector } from './connector.js';

// A server process that dies takes its GET stream with it: the connector must notice at once,
// not when the next call fails.
describe('an HTTP upstream that is killed', () => {
  let fixture: HttpFixture | undefined;
  let connector: Connector | undefined;
  afterEach(async () => {
    await connector?.close();
    await fixture?.close();
  });

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

      const left = new Promise<number>((resolve) => {
        const killedAt = performance.now();
        const poll = setInterval(() => {
          if (connector?.state !== 'connected') {
            clearInterval(poll);
            resolve(performance.now() - killedAt);
          }
        }, 10);
      });
      process.kill(fixture.pid, signal);
      const elapsed = await Promise.race([
        left,
        new Promise<number>((resolve) =>
          setTimeout(() => {
            resolve(Infinity);
          }, 8_000),
        ),
      ]);
      expect(elapsed).toBeLessThan(2_000);
    },
  );
});
