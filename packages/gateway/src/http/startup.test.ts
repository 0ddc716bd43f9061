import { createToolkit, defineTool, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from './serve.js';
import { INITIALIZE_BODY, POST_HEADERS } from '../testing/raw-client.js';

const echo = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

let toolkit: Toolkit;
const gateways: HttpGateway[] = [];

beforeAll(() => {
  toolkit = createToolkit({ tools: [echo] });
});

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await toolkit.close();
});

function initialize(url: URL): Promise<Response> {
  return fetch(url, { method: 'POST', headers: POST_HEADERS, body: INITIALIZE_BODY });
}

describe('serveHttp startup', () => {
  it('answers 503 with Retry-After when the startup outlasts the wait, and /healthz at once', async () => {
    const gateway = await serveHttp(toolkit, {
      port: 0,
      startup: { until: new Promise(() => undefined), waitMs: 0 },
    });
    gateways.push(gateway);
    const response = await initialize(gateway.url);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.text()).toMatch(/still connecting its servers/);
    const health = await fetch(new URL('/healthz', gateway.url));
    expect(health.status).toBe(200);
  });

  it('holds a request until the startup is over, then serves it', async () => {
    let over = (): void => undefined;
    const until = new Promise<void>((resolve) => {
      over = resolve;
    });
    const gateway = await serveHttp(toolkit, { port: 0, startup: { until, waitMs: 60_000 } });
    gateways.push(gateway);
    let answered = false;
    const pending = initialize(gateway.url).then((response) => {
      answered = true;
      return response;
    });
    // A request on another connection answered meanwhile: the first one has been read and held.
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200);
    expect(answered).toBe(false);
    over();
    expect((await pending).status).toBe(200);
  });

  it('counts a failed startup as over', async () => {
    const gateway = await serveHttp(toolkit, {
      port: 0,
      startup: { until: Promise.reject(new Error('upstreams failed')), waitMs: 60_000 },
    });
    gateways.push(gateway);
    expect((await initialize(gateway.url)).status).toBe(200);
  });
});
