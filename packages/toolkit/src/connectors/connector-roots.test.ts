import {
  fixtureCommand,
  startHttpFixture,
  type FixtureMode,
  type HttpFixture,
} from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CALLER_META_KEY,
  createConnector,
  type Connector,
  type RootsRequestContext,
} from './connector.js';

// 2026-07-28 has no roots/list request of its own: a server asks for roots in an input_required
// round of the call that needs them, which the connector answers with the same handler as a 2025
// server's roots/list, for the same caller.

const connectors: Connector[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.close()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

describe('Connector roots, both eras', () => {
  it.each([
    ['stdio-2026', '2026'],
    ['http-2026', '2026'],
    ['stdio', '2025'],
    ['http', '2025'],
  ] as const satisfies readonly (readonly [FixtureMode, string])[])(
    "answers a server's request for roots during a call over %s (%s), for its caller",
    async (mode, era) => {
      const asked: RootsRequestContext[] = [];
      let source: URL | ReturnType<typeof fixtureCommand> = fixtureCommand(mode);
      if (mode.startsWith('http')) {
        const fixture = await startHttpFixture({ server: fixtureCommand(mode) });
        fixtures.push(fixture);
        source = fixture.url;
      }
      const connector = createConnector(source, {
        upstreamRequests: () => ({
          capabilities: { roots: true },
          handle: () => Promise.reject(new Error('no sampling or elicitation here')),
          listRoots: (context) => {
            asked.push(context);
            return Promise.resolve({
              roots: [{ uri: `file:///projects/${context.caller ?? 'nobody'}`, name: 'mine' }],
            });
          },
        }),
      });
      connectors.push(connector);
      connector.start();
      await connector.ready();
      expect(connector.era).toBe(era);
      const result = await connector.client?.callTool({
        name: 'roots',
        arguments: {},
        _meta: { [CALLER_META_KEY]: 'ada' },
      });
      const text = (result?.content as { text?: string }[]).map((b) => b.text ?? '').join('');
      expect(JSON.parse(text)).toEqual([{ uri: 'file:///projects/ada', name: 'mine' }]);
      expect(asked.at(-1)).toMatchObject({ namespace: connector.namespace, caller: 'ada' });
    },
  );
});
