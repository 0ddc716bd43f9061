import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createToolkit, defineTool, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INSTANCE_META_KEY, serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';

// A builtin that holds its call until told to finish, so a call is in flight on demand.
let release: (() => void) | undefined;
let holding: (() => void) | undefined;
const hold = defineTool({
  name: 'hold',
  description: 'Answers once the test releases it.',
  input: z.object({}),
  run: () =>
    new Promise<string>((resolve) => {
      release = () => {
        resolve('released');
      };
      holding?.();
    }),
});

let toolkit: Toolkit;
const gateways: HttpGateway[] = [];

async function serve(options: Partial<ServeHttpOptions>): Promise<HttpGateway> {
  const gateway = await serveHttp(toolkit, { port: 0, ...options });
  gateways.push(gateway);
  return gateway;
}

async function modernClient(url: URL): Promise<Client> {
  const client = new Client(
    { name: 'drain-test', version: '0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

const healthz = (gateway: HttpGateway) => fetch(new URL('/healthz', gateway.url));

beforeAll(() => {
  toolkit = createToolkit({ tools: [hold] });
});

afterEach(async () => {
  release?.();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await toolkit.close();
});

describe('serveHttp readiness', () => {
  it('answers /healthz 503 "unavailable" while its ready check fails, throws or is late', async () => {
    let answer: 'yes' | 'no' | 'throw' | 'hang' = 'no';
    const gateway = await serve({
      ready: ({ signal }) => {
        if (answer === 'throw') return Promise.reject(new Error('store down'));
        if (answer === 'hang') {
          return new Promise((_, reject) => {
            signal.addEventListener('abort', () => {
              reject(signal.reason as Error);
            });
          });
        }
        return Promise.resolve(answer === 'yes');
      },
    });
    for (const state of ['no', 'throw', 'hang'] as const) {
      answer = state;
      const response = await healthz(gateway);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: 'unavailable' });
    }
    answer = 'yes';
    const ok = await healthz(gateway);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok' });
  });

  it('names its instance in every answer and in the _meta of its HTTP-layer errors', async () => {
    const gateway = await serve({ instanceId: 'gw-7' });
    expect((await healthz(gateway)).headers.get('toolplane-instance')).toBe('gw-7');
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {', // truncated
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('toolplane-instance')).toBe('gw-7');
    expect(await response.json()).toMatchObject({
      error: { data: { _meta: { [INSTANCE_META_KEY]: 'gw-7' } } },
    });
  });

  it('refuses a negative drainMs with invalid_config', async () => {
    await expect(serve({ drainMs: -1 })).rejects.toMatchObject({ code: 'invalid_config' });
  });
});

describe('serveHttp drain', () => {
  it('finishes a call in flight while refusing new connections, then closes', async () => {
    const gateway = await serve({ drainMs: 10_000 });
    const client = await modernClient(gateway.url);
    try {
      const begun = new Promise<void>((resolve) => (holding = resolve));
      const call = client.callTool({ name: 'builtin__hold', arguments: {} });
      await begun;
      let closedYet = false;
      const closed = gateway.close().then(() => {
        closedYet = true;
      });
      // The listener is closed at once: a balancer's new connection is refused, and it retries
      // elsewhere.
      await expect(fetch(new URL('/healthz', gateway.url))).rejects.toThrow();
      expect(closedYet).toBe(false);
      release?.();
      expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
      await closed;
    } finally {
      holding = undefined;
      await client.close().catch(() => undefined);
    }
  });

  it('cuts a call still running once drainMs has passed', async () => {
    const gateway = await serve({ drainMs: 200 });
    const client = await modernClient(gateway.url);
    try {
      const begun = new Promise<void>((resolve) => (holding = resolve));
      const call = client
        .callTool({ name: 'builtin__hold', arguments: {} }, { timeout: 5_000 })
        .then(
          () => 'answered',
          () => 'failed',
        );
      await begun;
      await gateway.close();
      expect(await call).toBe('failed');
    } finally {
      holding = undefined;
      await client.close().catch(() => undefined);
    }
  });
});
