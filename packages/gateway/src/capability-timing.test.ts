import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from './http.js';
import { everythingCommand, exerciseGatedTools, GATED_TOOLS } from './testing/gated-tools.js';

// Whether an upstream learns what the gateway's clients can do must not depend on when the
// gateway is served: before the toolkit runs, while its upstream is connecting, or after ready().

const STARTS = 3;

interface Started {
  readonly running: RunningToolkit;
  readonly gateway: HttpGateway;
}

const serve = (toolkit: Toolkit): Promise<HttpGateway> =>
  serveHttp(toolkit, { port: 0, transparent: 'everything' });

const orders: Record<string, (toolkit: Toolkit) => Promise<Started>> = {
  'served before the toolkit runs': async (toolkit) => {
    const gateway = await serve(toolkit);
    return { gateway, running: await runToolkit(toolkit) };
  },
  'served while its upstream is connecting': async (toolkit) => {
    const starting = runToolkit(toolkit);
    const gateway = await serve(toolkit);
    return { gateway, running: await starting };
  },
  'served after ready()': async (toolkit) => {
    const running = await runToolkit(toolkit);
    return { running, gateway: await serve(toolkit) };
  },
};

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('server-everything behind serveHttp', () => {
  for (const [order, start] of Object.entries(orders)) {
    it(`lists its sampling and elicitation tools and runs them when ${order}`, async () => {
      for (let run = 0; run < STARTS; run++) {
        const toolkit = createToolkit();
        toolkit.addConnector(everythingCommand, { namespace: 'everything' });
        stops.push(() => toolkit.close());
        const { running, gateway } = await start(toolkit);
        stops.push(async () => {
          await gateway.close();
          await running.stop();
        });

        const tag = `${order} #${run}`;
        const seen = await exerciseGatedTools(new StreamableHTTPClientTransport(gateway.url), tag);
        expect(seen.names, tag).toEqual(expect.arrayContaining([...GATED_TOOLS]));
        expect(seen.sampled, tag).toContain(`sampled ${tag}`);
        expect(seen.elicited, tag).toContain(`- Name: elicited ${tag}`);
        expect(seen.asked, tag).toEqual(['sampling', 'elicitation']);

        for (const stop of stops.splice(0).reverse()) await stop();
      }
    }, 120_000);
  }
});
