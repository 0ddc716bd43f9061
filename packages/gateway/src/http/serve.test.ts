import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect as netConnect } from 'node:net';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { createToolkit, type ConnectorSource } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { INITIALIZE_BODY, openRequest } from '../testing/raw-client.js';
import { cancelMidCall, startSlowCalls } from '../testing/slow-calls.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';

async function startToolkit(
  source: ConnectorSource = fixtureCommand('stdio'),
): Promise<RunningToolkit> {
  const toolkit = createToolkit({
    connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
  });
  toolkit.addConnector(source, { namespace: 'fx' });
  return runToolkit(toolkit);
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A raw HTTP request, so tests can send what fetch refuses to (a foreign Host, broken bodies). */
function raw(
  url: URL,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    path?: string;
    /** Told when the response's status line and headers have arrived. */
    onHeaders?: () => void;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      url,
      (res) => {
        options.onHeaders?.();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
      options,
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('serveHttp', () => {
  let running: RunningToolkit;
  let gateway: HttpGateway;
  const serve = (options: Partial<ServeHttpOptions> = {}) =>
    serveHttp(running.toolkit, { port: 0, ...options });

  beforeAll(async () => {
    running = await startToolkit();
    gateway = await serve({ token: 'secret', maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await gateway.close();
    await running.stop();
  });

  const auth = { authorization: 'Bearer secret' };

  it('binds 127.0.0.1 on a free port and serves list, call, prompts and resources', async () => {
    expect(gateway.url.hostname).toBe('127.0.0.1');
    expect(gateway.url.port).not.toBe('0');
    const client = await connect(gateway.url, auth);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('fx__echo');
      const echoed = await client.callTool({
        name: 'fx__echo',
        arguments: { text: 'over http' },
      });
      expect(echoed.content).toEqual([{ type: 'text', text: 'over http' }]);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('fx__echo');
      const readme = await client.readResource({ uri: 'fixture://readme' });
      expect(readme.contents[0]).toMatchObject({ text: '# Fixture\n' });
    } finally {
      await client.close();
    }
  });

  it('relays progress and passes a cancel on to the upstream over HTTP', async () => {
    const client = await connect(gateway.url, auth);
    try {
      const seen: number[] = [];
      await client.callTool(
        { name: 'fx__progress', arguments: { steps: 2 } },
        {
          onprogress: (event) => seen.push(event.progress),
        },
      );
      expect(seen).toEqual([1, 2]);
      expect(await cancelMidCall(client, 'http-cancel')).toEqual({ cancelled: true });
    } finally {
      await client.close();
    }
  });

  it('answers 401 without the bearer token', async () => {
    const response = await raw(gateway.url, { body: INITIALIZE_BODY });
    expect(response.status).toBe(401);
    const wrong = await raw(gateway.url, {
      body: INITIALIZE_BODY,
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
  });

  it('answers 403 to a foreign Host or an Origin not allowed', async () => {
    const host = await raw(gateway.url, {
      body: INITIALIZE_BODY,
      headers: { ...auth, host: 'evil.example:80' },
    });
    expect(host.status).toBe(403);
    const origin = await raw(gateway.url, {
      body: INITIALIZE_BODY,
      headers: { ...auth, origin: 'http://evil.example' },
    });
    expect(origin.status).toBe(403);
    const otherPort = await raw(gateway.url, {
      body: INITIALIZE_BODY,
      headers: { ...auth, origin: 'http://127.0.0.1:1' },
    });
    expect(otherPort.status).toBe(403);
  });

  it('accepts its own origin on every loopback name', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      const own = await raw(gateway.url, {
        body: INITIALIZE_BODY,
        headers: { ...auth, origin: `http://${name}:${gateway.url.port}` },
      });
      expect(own.status).toBe(200);
    }
  });

  it('answers malformed, oversized and truncated bodies with JSON-RPC errors and stays up', async () => {
    const malformed = await raw(gateway.url, { body: '{"jsonrpc":', headers: auth });
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toMatchObject({ error: { code: -32700 } });
    const oversized = await raw(gateway.url, {
      body: JSON.stringify({ pad: 'x'.repeat(128 * 1024) }),
      headers: auth,
    });
    expect(oversized.status).toBe(413);
    expect(JSON.parse(oversized.body)).toHaveProperty('error');
    // Chunked, so only reading tells the size: refused once over, the rest discarded.
    const chunked = await raw(gateway.url, {
      body: JSON.stringify({ pad: 'x'.repeat(128 * 1024) }),
      headers: { ...auth, 'transfer-encoding': 'chunked' },
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: { code: -32600 } });
    // A body shorter than its Content-Length, then the connection ends.
    await new Promise<void>((resolve, reject) => {
      const socket = netConnect(Number(gateway.url.port), '127.0.0.1', () => {
        socket.end(
          `POST ${gateway.url.pathname} HTTP/1.1\r\nHost: 127.0.0.1:${gateway.url.port}\r\n` +
            `Authorization: Bearer secret\r\nContent-Type: application/json\r\n` +
            `Content-Length: 1000\r\n\r\n{"jsonrpc":"2.0"`,
        );
      });
      socket.on('error', reject);
      socket.on('close', () => {
        resolve();
      });
      socket.resume();
    });
    const health = await raw(gateway.url, { method: 'GET', path: '/healthz', headers: auth });
    expect(health.status).toBe(200);
  });

  it('answers an unknown session with 404 and a non-initialize first request with 400', async () => {
    const unknown = await raw(gateway.url, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: { ...auth, 'mcp-session-id': 'nope' },
    });
    expect(unknown.status).toBe(404);
    const first = await raw(gateway.url, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: auth,
    });
    expect(first.status).toBe(400);
  });

  it('reports every connector state on GET /healthz', async () => {
    const health = await raw(gateway.url, { method: 'GET', path: '/healthz', headers: auth });
    // Neither the holder's details nor a state of this moment may be kept by a cache.
    expect(health.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(health.body)).toMatchObject({
      status: 'ok',
      connectors: [{ namespace: 'fx', state: 'connected' }],
    });
  });

  it('reaps sessions that stay idle', async () => {
    // Long enough that a loaded machine still completes the handshake before the reaping.
    const idle = await serve({ sessionIdleMs: 1_000 });
    try {
      const client = await connect(idle.url);
      expect(idle.sessionCount).toBe(1);
      await vi.waitFor(
        () => {
          expect(idle.sessionCount).toBe(0);
        },
        { timeout: 10_000, interval: 20 },
      );
      await client.close();
    } finally {
      await idle.close();
    }
  });

  it('serves calls without sessions in stateless mode', async () => {
    const stateless = await serve({ stateless: true });
    try {
      const client = await connect(stateless.url);
      const result = await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } });
      expect(result.structuredContent).toEqual({ sum: 3 });
      expect(stateless.sessionCount).toBe(0);
      await client.close();
    } finally {
      await stateless.close();
    }
  });
});

/**
 * A toolkit in front of the stdio fixture, served over HTTP for the tests of the describe block
 * this is called in (started before them, closed after).
 */
function serveForBlock(options: Partial<ServeHttpOptions> = {}): {
  readonly running: RunningToolkit;
  readonly gateway: HttpGateway;
} {
  const served = {} as { running: RunningToolkit; gateway: HttpGateway };
  beforeAll(async () => {
    served.running = await startToolkit();
    served.gateway = await serveHttp(served.running.toolkit, { port: 0, ...options });
  });
  afterAll(async () => {
    await served.gateway.close();
    await served.running.stop();
  });
  return served;
}

/** The JSON-RPC messages of an SSE body, in order. */
function events(body: string): unknown[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

/** Opens a session by hand at `url`; resolves with the headers its requests carry. */
async function openSession(url: URL): Promise<Record<string, string>> {
  const init = await raw(url, { body: INITIALIZE_BODY });
  expect(init.status).toBe(200);
  const id = init.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error('no session ID');
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  const initialized = await raw(url, {
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    headers,
  });
  expect(initialized.status).toBe(202);
  expect(initialized.body).toBe('');
  return headers;
}

/** A `tools/call` request's body. */
const call = (id: number, name: string, args: unknown, meta?: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
  });

describe('serveHttp on the wire', () => {
  // Whether an answer is one JSON body or a stream depends on whether its responses come within
  // `streamAfterMs`: a minute here, so a call slowed by a loaded machine still answers as JSON.
  const served = serveForBlock({ streamAfterMs: 60_000 });

  const open = () => openSession(served.gateway.url);

  it('answers a call with nothing else to say as one JSON body, with the session ID', async () => {
    const headers = await open();
    const answer = await raw(served.gateway.url, {
      body: call(2, 'fx__add', { a: 2, b: 3 }),
      headers,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['mcp-session-id']).toBe(headers['mcp-session-id']);
    expect(JSON.parse(answer.body)).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      result: { structuredContent: { sum: 5 } },
    });
  });

  it('streams progress before the result as server-sent events', async () => {
    const headers = await open();
    const answer = await raw(served.gateway.url, {
      body: call(3, 'fx__progress', { steps: 3 }, { progressToken: 'p' }),
      headers,
    });
    expect(answer.headers['content-type']).toBe('text/event-stream');
    const messages = events(answer.body) as { method?: string; params?: { progress: number } }[];
    expect(messages.map((m) => m.method ?? 'result')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'result',
    ]);
    expect(messages.slice(0, 3).map((m) => m.params?.progress)).toEqual([1, 2, 3]);
  });

  it('answers a batch with every response, in one body', async () => {
    const headers = await open();
    const batch = `[${call(4, 'fx__add', { a: 1, b: 1 })},${call(5, 'fx__echo', { text: 'hi' })}]`;
    const answer = await raw(served.gateway.url, { body: batch, headers });
    const responses = JSON.parse(answer.body) as { id: number }[];
    expect(responses.map((r) => r.id).sort()).toEqual([4, 5]);
  });

  it('refuses what the transport does not allow, with the status the spec names', async () => {
    const headers = await open();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    const onlyJson = await raw(served.gateway.url, {
      body: list,
      headers: { ...headers, accept: 'application/json' },
    });
    expect(onlyJson.status).toBe(406);
    const text = await raw(served.gateway.url, {
      body: list,
      headers: { ...headers, 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const version = await raw(served.gateway.url, {
      body: list,
      headers: { ...headers, 'mcp-protocol-version': '1999-01-01' },
    });
    expect(version.status).toBe(400);
    expect(version.body).toContain('1999-01-01');
    const again = await raw(served.gateway.url, { body: INITIALIZE_BODY, headers });
    expect(again.status).toBe(400);
    for (const body of [
      '[]',
      JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', method: `n${i}` }))),
      JSON.stringify({ jsonrpc: '2.0', id: { nested: true }, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: 'not an object' }),
      '"just a string"',
    ]) {
      const bad = await raw(served.gateway.url, { body, headers });
      expect(bad.status, body).toBe(400);
      expect(JSON.parse(bad.body), body).toMatchObject({ error: { code: -32600 } });
    }
    // The session is unharmed.
    const fine = await raw(served.gateway.url, { body: list, headers });
    expect(JSON.parse(fine.body)).toMatchObject({ id: 6, result: { tools: expect.any(Array) } });
  });

  it('takes hostile keys in arguments as data', async () => {
    const headers = await open();
    const answer = await raw(served.gateway.url, {
      body: '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"fx__echo","arguments":{"text":"x","__proto__":{"polluted":true}}}}',
      headers,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toHaveProperty('id', 8);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps one GET stream per session, and ends the session on DELETE', async () => {
    const headers = await open();
    const stream = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = httpRequest(served.gateway.url, {
        method: 'GET',
        headers: { ...headers, accept: 'text/event-stream' },
      });
      req.once('response', resolve).once('error', reject).end();
    });
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const second = await raw(served.gateway.url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream' },
    });
    expect(second.status).toBe(409);
    const ended = new Promise((resolve) => stream.once('end', resolve).resume());
    const sessions = served.gateway.sessionCount;
    const deleted = await raw(served.gateway.url, { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    await ended;
    expect(served.gateway.sessionCount).toBe(sessions - 1);
    const after = await raw(served.gateway.url, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      headers,
    });
    expect(after.status).toBe(404);
  });
});

describe('serveHttp, a slow call', () => {
  // The default `streamAfterMs`: a call still running after it has its headers sent.
  const served = serveForBlock();
  const open = () => openSession(served.gateway.url);

  it('answers a call still running when its session ends with a JSON-RPC error', async () => {
    const headers = await open();
    let streaming!: () => void;
    const streamed = new Promise<void>((resolve) => (streaming = resolve));
    const pending = raw(served.gateway.url, {
      body: call(10, 'fx__slow', { ms: 10_000 }),
      headers,
      onHeaders: streaming,
    });
    // The answer turns into a stream once the call has run a while: then end the session under it.
    await streamed;
    await raw(served.gateway.url, { method: 'DELETE', headers });
    const answer = await pending;
    // A slow call's answer is a stream: its headers went out before the call ended.
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(events(answer.body)).toMatchObject([
      { id: 10, error: { code: -32000, message: expect.stringContaining('closed') } },
    ]);
  });

  it('refuses a streamAfterMs that is not a non-negative integer', async () => {
    for (const streamAfterMs of [-1, 1.5, Number.NaN]) {
      await expect(
        serveHttp(served.running.toolkit, { port: 0, streamAfterMs }),
      ).rejects.toMatchObject({
        code: 'invalid_config',
        message: expect.stringContaining('streamAfterMs'),
      });
    }
  });
});

describe('serveHttp with an upstream that dies under load', () => {
  const served = serveForBlock();

  it('answers every call in flight, recovers and sends tools/list_changed', async () => {
    const client = await connect(served.gateway.url);
    try {
      const changed: string[] = [];
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed.push('tools');
      });
      const pid = served.running.toolkit.connectors()[0]?.pid;
      expect(pid).toBeGreaterThan(0);
      const { outcomes } = await startSlowCalls(client, 16, 'load');
      process.kill(pid ?? 0, 'SIGKILL');
      for (const outcome of await outcomes) {
        expect((outcome as CallToolResult).isError).toBe(true);
        expect((outcome as CallToolResult).structuredContent).toMatchObject({
          error: { code: 'execution' },
        });
      }
      await vi.waitFor(
        () => {
          expect(served.running.toolkit.connectors()[0]?.state).toBe('connected');
          expect(changed.length).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
      const result = await client.callTool({ name: 'fx__add', arguments: { a: 2, b: 2 } });
      expect(result.structuredContent).toEqual({ sum: 4 });
    } finally {
      await client.close();
    }
  });
});

describe('serveHttp with an HTTP upstream that dies under load', () => {
  let fixture: HttpFixture;
  let running: RunningToolkit;
  let gateway: HttpGateway;
  beforeAll(async () => {
    fixture = await startHttpFixture();
    running = await startToolkit(fixture.url.href);
    gateway = await serveHttp(running.toolkit, { port: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await running.stop();
    await fixture.close();
  });

  it('answers every call in flight with an error, drops its tools and says so', async () => {
    const client = await connect(gateway.url);
    try {
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed++;
      });
      const { outcomes } = await startSlowCalls(client, 16, 'http-load');
      process.kill(fixture.pid, 'SIGKILL');
      for (const outcome of await outcomes) {
        expect((outcome as CallToolResult).isError).toBe(true);
        expect((outcome as CallToolResult).structuredContent).toMatchObject({
          error: { code: 'execution' },
        });
      }
      await vi.waitFor(
        () => {
          expect(running.toolkit.connectors()[0]?.state).not.toBe('connected');
          expect(changed).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
      // Its tools are gone from the list; a call of one says why instead of "no such tool".
      const late = await client.callTool({
        name: 'fx__add',
        arguments: { a: 1, b: 1 },
      });
      expect(late.isError).toBe(true);
      expect(late.structuredContent).toMatchObject({ error: { code: 'connector_unavailable' } });
    } finally {
      await client.close();
    }
  });
});
