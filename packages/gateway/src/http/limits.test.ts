import type { Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createToolkit, defineTool, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';
import {
  closed,
  heldRequest,
  initializeFrom,
  INITIALIZE_BODY,
  openRequest,
  POST_HEADERS,
  trickle,
} from '../testing/raw-client.js';

// A builtin that holds its call until told to finish, so a session stays busy on demand.
let release: (() => void) | undefined;
const hold = defineTool({
  name: 'hold',
  description: 'Answers once the test releases it.',
  input: z.object({}),
  run: () =>
    new Promise<string>((resolve) => {
      release = () => {
        resolve('released');
      };
    }),
});

let toolkit: Toolkit;
const gateways: HttpGateway[] = [];
const clients: Client[] = [];

async function serve(options: Partial<ServeHttpOptions>): Promise<HttpGateway> {
  const gateway = await serveHttp(toolkit, { port: 0, ...options });
  gateways.push(gateway);
  return gateway;
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'limits-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

function initialize(url: URL): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: POST_HEADERS,
    body: INITIALIZE_BODY,
  });
}

beforeAll(() => {
  toolkit = createToolkit({ tools: [hold] });
});

afterEach(async () => {
  release?.();
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

afterAll(async () => {
  await toolkit.close();
});

describe('serveHttp session cap', () => {
  it('makes room by closing the least recently used idle session', async () => {
    const gateway = await serve({ maxSessions: 2 });
    const first = await connect(gateway.url);
    const second = await connect(gateway.url);
    // The first is used again, so the second is now the least recently used.
    await first.ping();
    const third = await connect(gateway.url);
    expect(gateway.sessionCount).toBe(2);
    await first.ping();
    await third.ping();
    // The evicted session is unknown now: its client is told to initialize anew.
    await expect(second.ping()).rejects.toThrow(/unknown or has ended/);
  });

  it('answers 503 with Retry-After when every session is busy', async () => {
    const gateway = await serve({ maxSessions: 1 });
    const busy = await connect(gateway.url);
    const call = busy.callTool({ name: 'builtin__hold', arguments: {} });
    await expect.poll(() => release).toBeDefined();
    const refused = await initialize(gateway.url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/1 sessions, all busy/);
    release?.();
    await call;
    // Idle again: a new session may take its place.
    expect((await initialize(gateway.url)).status).toBe(200);
  });

  it('refuses a cap that is not a positive integer', async () => {
    await expect(serve({ maxSessions: 0 })).rejects.toMatchObject({ code: 'invalid_config' });
  });

  it('refuses a body bound that is not a positive integer (NaN bounded no body)', async () => {
    // `Number(process.env.X)` of a variable that is not set: every body was read whole.
    for (const maxBodyBytes of [Number.NaN, 0, -1, 1.5]) {
      await expect(serve({ maxBodyBytes })).rejects.toMatchObject({ code: 'invalid_config' });
    }
  });
});

describe('serveHttp /healthz', () => {
  it('tells anyone the status word, and the details only to a caller with the token', async () => {
    const gateway = await serve({ token: 'a-token-of-16-chars' });
    const health = new URL('/healthz', gateway.url);
    const open = await fetch(health);
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ status: 'ok' });
    const wrong = await fetch(health, { headers: { authorization: 'Bearer nope' } });
    expect(await wrong.json()).toEqual({ status: 'ok' });
    const authorized = await fetch(health, {
      headers: { authorization: 'Bearer a-token-of-16-chars' },
    });
    expect(await authorized.json()).toEqual({ status: 'ok', sessions: 0, connectors: [] });
  });

  it('keeps details to itself when no token is configured', async () => {
    const gateway = await serve({});
    expect(await (await fetch(new URL('/healthz', gateway.url))).json()).toEqual({
      status: 'ok',
    });
  });
});

describe('serveHttp connection limits', () => {
  it('cuts connections that trickle their headers, and serves clients meanwhile', async () => {
    const gateway = await serve({ headersTimeoutMs: 500, maxConnections: 200 });
    // From a source of their own: the client's source has a bound of its own (see below).
    const sockets = await Promise.all(
      Array.from({ length: 150 }, () => trickle(gateway.url, '127.0.0.2')),
    );
    const client = await connect(gateway.url);
    await client.ping();
    // Every trickling connection is ended by the server (the test's time limit bounds the wait).
    await Promise.all(sockets.map(closed));
    await client.ping();
  });

  it('refuses connections past the cap on arrival', async () => {
    const gateway = await serve({
      maxConnections: 5,
      maxConnectionsPerSource: 5,
      headersTimeoutMs: 5_000,
    });
    const held = await Promise.all(Array.from({ length: 5 }, () => trickle(gateway.url)));
    const extra = await trickle(gateway.url);
    await closed(extra);
    for (const socket of held) socket.destroy();
  });

  it('keeps an idle connection open past what clients keep themselves, and says how long', async () => {
    const gateway = await serve({});
    // A client closes an idle connection by the server's advertised timeout (undici 2 s before
    // it); at Node's default of 5 s, a call after a pause could meet the server's close.
    const keepAlive = await new Promise<unknown>((resolve, reject) => {
      const req = openRequest(gateway.url, (res) => {
        resolve(res.headers['keep-alive']);
        res.resume();
      });
      req.on('error', reject);
      req.end(INITIALIZE_BODY);
    });
    expect(keepAlive).toBe('timeout=65');
  });

  it('answers a wrong token from the headers, without reading the body', async () => {
    const gateway = await serve({ token: 'a-token-of-16-chars' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = openRequest(
        gateway.url,
        (res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
        },
        // A large body is announced and never sent.
        { headers: { authorization: 'Bearer wrong', 'content-length': String(50 * 1024 * 1024) } },
      );
      req.on('error', reject);
      req.write('{');
    });
    expect(status).toBe(401);
  });
});

describe('serveHttp per-source connection bound', () => {
  it('keeps room for other sources while one holds more trickling connections than the cap', async () => {
    const gateway = await serve({ maxConnections: 40, headersTimeoutMs: 10_000 });
    const attack = await Promise.all(
      Array.from({ length: 60 }, () => trickle(gateway.url, '127.0.0.2')),
    );
    try {
      for (const source of ['127.0.0.3', '127.0.0.4', '127.0.0.5']) {
        expect(await initializeFrom(gateway.url, source)).toBe(200);
      }
    } finally {
      for (const socket of attack) socket.destroy();
    }
  });

  it('refuses a source past its own bound on arrival, and no other', async () => {
    const gateway = await serve({ maxConnectionsPerSource: 3, headersTimeoutMs: 10_000 });
    const held = await Promise.all(
      Array.from({ length: 3 }, () => trickle(gateway.url, '127.0.0.2')),
    );
    try {
      const extra = await trickle(gateway.url, '127.0.0.2');
      await closed(extra);
      expect(held.some((socket) => socket.destroyed)).toBe(false);
      expect(await initializeFrom(gateway.url, '127.0.0.3')).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('takes the client from X-Forwarded-For only on a trusted proxy’s connections', async () => {
    const gateway = await serve({
      maxConnectionsPerSource: 2,
      trustedProxies: ['127.0.0.8/31'],
      headersTimeoutMs: 10_000,
    });
    const sockets: Socket[] = [];
    try {
      // Through the proxy: a client's requests in flight are bounded, the proxy's connections not.
      const client = { 'x-forwarded-for': '198.51.100.7' };
      for (let i = 0; i < 2; i++) {
        const held = await heldRequest(gateway.url, '127.0.0.8', client);
        expect(held.status).toBeUndefined();
        sockets.push(held.socket);
      }
      expect(await initializeFrom(gateway.url, '127.0.0.8', client, false)).toBe(429);
      // Another client behind the proxy (given behind a spoofed entry the proxy appended to).
      const other = { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' };
      expect(await initializeFrom(gateway.url, '127.0.0.9', other)).toBe(200);
      // An untrusted source's X-Forwarded-For is ignored: its own address is bounded.
      for (const forwarded of ['192.0.2.1', '192.0.2.2']) {
        const held = await heldRequest(gateway.url, '127.0.0.6', { 'x-forwarded-for': forwarded });
        expect(held.status).toBeUndefined();
        sockets.push(held.socket);
      }
      const spoofing = await trickle(gateway.url, '127.0.0.6');
      await closed(spoofing);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('refuses a per-source bound above maxConnections, and a bad trusted proxy', async () => {
    await expect(serve({ maxConnections: 4, maxConnectionsPerSource: 5 })).rejects.toMatchObject({
      code: 'invalid_config',
    });
    await expect(serve({ trustedProxies: ['not an address'] })).rejects.toMatchObject({
      code: 'invalid_config',
    });
  });
});
