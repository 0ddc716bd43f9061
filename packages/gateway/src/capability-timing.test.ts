import { PassThrough } from 'node:stream';
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { describe, it } from 'vitest';
import { serveHttp } from './http/serve.js';
import { serveStdio } from './stdio/serve.js';
import { StdioTransport } from './stdio/transport.js';
import { everythingCommand } from '@toolplane/fixtures';
import { exerciseGatedTools, GATED_TOOLS } from './testing/everything.js';

// Whether an upstream learns what the gateway's clients can do must not depend on when the
// gateway is served: before the toolkit runs, while its upstream is connecting, or after ready(),
// over HTTP or stdio.

const STARTS = 3;

/** A served gateway: a client transport to reach it, and how to stop it. */
interface Served {
  transport(): Transport;
  close(): Promise<void>;
}

const gateways: Record<string, (toolkit: Toolkit) => Promise<Served>> = {
  serveHttp: async (toolkit) => {
    const gateway = await serveHttp(toolkit, { port: 0, transparent: 'everything' });
    return {
      transport: () => new StreamableHTTPClientTransport(gateway.url),
      close: () => gateway.close(),
    };
  },
  serveStdio: async (toolkit) => {
    const [stdin, stdout] = [new PassThrough(), new PassThrough()];
    const gateway = await serveStdio(toolkit, { stdin, stdout, transparent: 'everything' });
    return {
      // The client's side of the pipes: one JSON-RPC message a line each way, as a child's are.
      transport: () => new StdioTransport(stdout, stdin),
      close: async () => {
        stdin.end();
        await gateway.close();
      },
    };
  },
};

const orders: Record<
  string,
  (
    toolkit: Toolkit,
    serve: (toolkit: Toolkit) => Promise<Served>,
  ) => Promise<[Served, RunningToolkit]>
> = {
  'before the toolkit runs': async (toolkit, serve) => {
    const served = await serve(toolkit);
    return [served, await runToolkit(toolkit)];
  },
  'while its upstream is connecting': async (toolkit, serve) => {
    const starting = runToolkit(toolkit);
    const served = await serve(toolkit);
    return [served, await starting];
  },
  'after ready()': async (toolkit, serve) => {
    const running = await runToolkit(toolkit);
    return [await serve(toolkit), running];
  },
};

// Each test starts its own toolkits and servers and waits mostly on them: the tests run at once.
describe('server-everything behind the gateway', { concurrent: true }, () => {
  for (const [name, serve] of Object.entries(gateways)) {
    for (const [order, start] of Object.entries(orders)) {
      it(`lists its sampling and elicitation tools and runs them when ${name} is called ${order}`, async ({
        expect,
        onTestFinished,
      }) => {
        // Each start's stop runs once: begun as soon as the start has been checked, so that stops
        // overlap (a stdio upstream can take seconds to end), and awaited after the test.
        const stopping: (() => Promise<void>)[] = [];
        onTestFinished(async () => {
          await Promise.all(stopping.map((stop) => stop()));
        });
        for (let run = 0; run < STARTS; run++) {
          const toolkit = createToolkit();
          toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
          const parts: { served?: Served; running?: RunningToolkit } = {};
          let stopped: Promise<void> | undefined;
          const stop = (): Promise<void> =>
            (stopped ??= (async () => {
              await parts.served?.close();
              await parts.running?.stop();
              await toolkit.close();
            })());
          stopping.push(stop);
          const [served, running] = await start(toolkit, serve);
          Object.assign(parts, { served, running });

          const tag = `${name} ${order} #${run}`;
          const seen = await exerciseGatedTools(served.transport(), tag);
          expect(seen.names, tag).toEqual(expect.arrayContaining([...GATED_TOOLS]));
          expect(seen.sampled, tag).toContain(`sampled ${tag}`);
          expect(seen.elicited, tag).toContain(`- Name: elicited ${tag}`);
          expect(seen.asked, tag).toEqual(['sampling', 'elicitation']);

          // A failure to stop surfaces once the test is over, where the same stop is awaited.
          stop().catch(() => undefined);
        }
      }, 120_000);
    }
  }
});
