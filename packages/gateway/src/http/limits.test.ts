import { connect as netConnect, type Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createToolkit, defineTool, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';
import { INITIALIZE_BODY, openRequest, POST_HEADERS } from '../testing/raw-client.js';

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

/** Opens a socket that sends part of a request's headers and then nothing more. */
function trickle(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(Number(url.port), url.hostname, () => {
      socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `);
      // Read whatever the server answers, so its closing the connection is seen.
      socket.resume();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

function closed(socket: Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) =>
    socket.once('close', () => {
      resolve();
    }),
  );
}

describe('serveHttp connection limits', () => {
  it('cuts connections that trickle their headers, and serves clients meanwhile', async () => {
    const gateway = await serve({ headersTimeoutMs: 500, maxConnections: 200 });
    const sockets = await Promise.all(Array.from({ length: 150 }, () => trickle(gateway.url)));
    const client = await connect(gateway.url);
    await client.ping();
    // Every trickling connection is ended by the server (the test's time limit bounds the wait).
    await Promise.all(sockets.map(closed));
    await client.ping();
  });

  it('refuses connections past the cap on arrival', async () => {
    const gateway = await serve({ maxConnections: 5, headersTimeoutMs: 5_000 });
    const held = await Promise.all(Array.from({ length: 5 }, () => trickle(gateway.url)));
    const extra = await trickle(gateway.url);
    await closed(extra);
    for (const socket of held) socket.destroy();
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
