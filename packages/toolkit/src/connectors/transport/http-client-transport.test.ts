import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, SdkHttpError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StreamableHttpClientTransport } from './http-client-transport.js';
import { serveMcpHttp } from '../testing/serve-mcp-http.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

interface Raw {
  readonly url: URL;
  readonly seen: { method: string; url: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A plain HTTP server on 127.0.0.1 that answers every request with `handler`. */
async function raw(handler: Handler): Promise<Raw> {
  const seen: Raw['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handler(req, Buffer.concat(chunks).toString('utf8'), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  closers.push(close);
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), seen, close };
}

function transportTo(
  url: URL,
  options?: ConstructorParameters<typeof StreamableHttpClientTransport>[1],
): { transport: StreamableHttpClientTransport; messages: JSONRPCMessage[]; errors: Error[] } {
  const transport = new StreamableHttpClientTransport(url, options);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  closers.push(() => transport.close());
  return { transport, messages, errors };
}

const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } } as const;
const answer = { jsonrpc: '2.0', id: 7, result: { text: 'ünïcödé "method"' } } as const;

function json(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

describe('StreamableHttpClientTransport', () => {
  it("speaks an SDK server's protocol: session, protocol version, calls, the session stream", async () => {
    const server = await serveMcpHttp({
      server: () => {
        const mcp = new McpServer({ name: 'echo', version: '1.0.0' });
        mcp.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
          content: [{ type: 'text', text }],
        }));
        return mcp;
      },
    });
    closers.push(() => server.close());
    const transport = new StreamableHttpClientTransport(server.url, {
      headers: { 'x-team': 'toolplane' },
    });
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
    closers.push(() => client.close());
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(transport.sessionId).toMatch(/.+/);
    const later = server.requests.at(-1);
    expect(later?.headers).toMatchObject({
      'mcp-session-id': transport.sessionId,
      'mcp-protocol-version': transport.protocolVersion,
      'x-team': 'toolplane',
    });
    // Once initialized, the session's GET stream was opened.
    await expect.poll(() => server.requests.some((r) => r.method === 'GET')).toBe(true);
  });

  it('reads an event stream however the network cuts it, and ties server requests to the call', async () => {
    const request = { jsonrpc: '2.0', id: 'e1', method: 'elicitation/create', params: {} };
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: {} };
    const stream = new TextEncoder().encode(
      [
        'id: p1\r\nretry: 10\r\ndata: \r\n\r\n',
        ': keep-alive\n\n',
        `event: message\nid: p2\ndata: ${JSON.stringify(request)}\n\n`,
        `data: ${JSON.stringify(progress)}\n\n`,
        `event: other\ndata: {"not": "for us"}\n\n`,
        // One message over two data lines, cut between JSON tokens.
        `data: ${JSON.stringify(answer).slice(0, 17)}\ndata: ${JSON.stringify(answer).slice(17)}\n\n`,
      ].join(''),
    );
    let cuts: number[] = [];
    const server = await raw((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const at = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b);
      let start = 0;
      const next = (): void => {
        const end = at.shift() ?? stream.length;
        res.write(stream.subarray(start, end));
        start = end;
        if (end === stream.length) res.end();
        else setTimeout(next, 1);
      };
      next();
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 8 }), async (cutAt) => {
        cuts = cutAt;
        const related: [string | number, string | number][] = [];
        const { transport, messages, errors } = transportTo(server.url, {
          onRelatedRequest: (callId, requestId) => related.push([callId, requestId]),
        });
        await transport.send(call);
        await expect.poll(() => messages.length).toBe(3);
        expect(messages).toEqual([request, progress, answer]);
        expect(related).toEqual([[7, 'e1']]);
        expect(errors).toEqual([]);
        await transport.close();
      }),
      { numRuns: 25 },
    );
  });

  it('delivers a JSON answer, one message or a batch, large ones whole', async () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    const server = await raw((_req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      const one = { jsonrpc: '2.0', id, result: { big, ['__proto__']: { polluted: true } } };
      json(res, id === 1 ? one : [{ jsonrpc: '2.0', method: 'notifications/message' }, one]);
    });
    const { transport, messages } = transportTo(server.url);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(messages.map((m) => ('id' in m ? m.id : 'method' in m && m.method))).toEqual([
      1,
      'notifications/message',
      2,
    ]);
    const result = (messages[0] as { result: Record<string, unknown> }).result;
    expect((result.big as string).length).toBe(big.length);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('reports what is not JSON-RPC and fails on HTTP errors and unexpected content', async () => {
    const server = await raw((req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      if (id === 1) json(res, [1, { jsonrpc: '1.0', id: 1 }]);
      else if (id === 2) json(res, { error: 'no' }, 500);
      else if (id === 3) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>hi</p>');
      } else if (id === 4) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc": "2.0", "id": 4, "resu');
      } else req.socket.destroy();
    });
    const { transport, messages, errors } = transportTo(server.url);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(messages).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('not a JSON-RPC message: 1'),
      expect.stringContaining('not a JSON-RPC message: {"jsonrpc":"1.0"'),
    ]);
    const failure = await transport
      .send({ jsonrpc: '2.0', id: 2, method: 'ping' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SdkHttpError);
    expect(failure).toMatchObject({ status: 500, message: expect.stringContaining('"no"') });
    await expect(transport.send({ jsonrpc: '2.0', id: 3, method: 'ping' })).rejects.toThrow(
      'Unexpected content type: text/html',
    );
    await expect(transport.send({ jsonrpc: '2.0', id: 4, method: 'ping' })).rejects.toThrow(
      SyntaxError,
    );
    await expect(transport.send({ jsonrpc: '2.0', id: 5, method: 'ping' })).rejects.toThrow(
      /POST http:\/\/127\.0\.0\.1:\d+\/mcp failed/,
    );
    expect(errors).toHaveLength(6);
  });

  it('follows redirects within the origin and no further', async () => {
    const elsewhere = await raw((_req, _body, res) => {
      json(res, answer);
    });
    const server = await raw((req, body, res) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/mcp?moved=1' });
        res.end();
      } else if (req.url === '/loop') {
        res.writeHead(307, { location: '/loop' });
        res.end();
      } else if (req.url === '/away') {
        res.writeHead(308, { location: elsewhere.url.href });
        res.end();
      } else {
        json(res, { ...answer, id: (JSON.parse(body) as { id: number }).id });
      }
    });
    const { transport, messages } = transportTo(new URL('/old', server.url));
    await transport.send({ ...call, id: 1 });
    expect(messages).toEqual([{ ...answer, id: 1 }]);
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /old',
      'POST /mcp?moved=1',
    ]);
    const away = transportTo(new URL('/away', server.url)).transport;
    await expect(away.send(call)).rejects.toThrow(/redirected to .*, not followed/);
    expect(elsewhere.seen).toEqual([]);
    const loop = transportTo(new URL('/loop', server.url)).transport;
    await expect(loop.send(call)).rejects.toThrow('more than 20 redirects');
    expect(server.seen.filter((r) => r.url === '/loop')).toHaveLength(21);
  });

  it('fails a call whose event stream ends before the answer with nothing to resume from', async () => {
    const server = await raw((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress' })}\n\n`);
    });
    const { transport, messages } = transportTo(server.url);
    await transport.send(call);
    await expect.poll(() => messages.length).toBe(2);
    expect(messages[1]).toMatchObject({
      id: 7,
      error: { code: -32000, message: expect.stringContaining('with no event ID') },
    });
  });

  it('resumes from the last event ID after the server’s retry delay', async () => {
    const server = await raw((req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.method === 'POST') res.end('id: a1\nretry: 20\ndata: \n\n');
      else res.end(`id: a2\ndata: ${JSON.stringify(answer)}\n\n`);
    });
    const { transport, messages } = transportTo(server.url);
    const sent = Date.now();
    await transport.send(call);
    await expect.poll(() => messages).toEqual([answer]);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(15);
    expect(server.seen[1]).toMatchObject({
      method: 'GET',
      headers: { 'last-event-id': 'a1', accept: 'text/event-stream' },
    });
  });

  it('closes: an open stream and a request in flight end, and nothing reconnects', async () => {
    // Its streams ask for a 1 ms reconnection delay: a reconnection would come at once.
    const server = await raw((req, body, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('retry: 1\n: open\n\n');
      } else if (!body.includes('"id"')) {
        res.writeHead(202).end();
      }
      // Requests are never answered.
    });
    // The marker: a second transport, not closed, whose first stream (same delay) ends.
    const control = await raw((req, _body, res) => {
      if (req.method !== 'GET') {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 1\n: open\n\n');
      if (control.seen.filter((r) => r.method === 'GET').length === 1) res.end();
    });
    const { transport, errors } = transportTo(server.url);
    let closed = 0;
    transport.onclose = () => (closed += 1);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const pending = transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await expect.poll(() => server.seen.length).toBe(3);
    await transport.close();
    await transport.close();
    await expect(pending).rejects.toThrow();
    expect(closed).toBe(1);
    // Once the control has reconnected after the same delay, a closed transport would have too.
    const marker = transportTo(control.url).transport;
    await marker.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await expect.poll(() => control.seen.filter((r) => r.method === 'GET').length).toBe(2);
    expect(server.seen).toHaveLength(3);
    expect(errors.filter((e) => !e.message.includes('closed'))).toEqual([]);
  });

  it('ends the session with DELETE, and a server without sessions refuses with 405', async () => {
    const server = await raw((req, _body, res) => {
      if (req.method === 'DELETE') res.writeHead(405).end();
      else {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
      }
    });
    const { transport } = transportTo(server.url);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize' });
    expect(transport.sessionId).toBe('s-1');
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    expect(server.seen.at(-1)).toMatchObject({
      method: 'DELETE',
      headers: { 'mcp-session-id': 's-1' },
    });
  });
});
