import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHttpFetch } from './mcp-fetch.js';

const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'é ✓' }] } };
const progress = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: 1 },
};
const event = (message: unknown, extra = ''): string =>
  `${extra}event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** What each path of the test server streams: chunks written `delayMs` apart, then the end. */
const streams: Record<string, { chunks: readonly (string | Buffer)[]; end?: 'end' | 'break' }> = {
  '/answer': { chunks: [event(answer)] },
  '/answer-crlf': { chunks: [event(answer).replaceAll('\n', '\r\n')] },
  '/answer-split': {
    // The answer cut inside a multi-byte character and inside its event's last line.
    chunks: (() => {
      const bytes = Buffer.from(event(answer, 'id: 41\n'));
      const cut = bytes.indexOf(Buffer.from('✓')) + 1;
      return [bytes.subarray(0, cut), bytes.subarray(cut, bytes.length - 1), bytes.subarray(-1)];
    })(),
  },
  '/progress-first': { chunks: [event(progress), event(answer)] },
  '/priming': { chunks: ['id: 1\ndata: \n\n', event(answer)] },
  '/other-id': { chunks: [event({ ...answer, id: 8 })] },
  '/no-event': { chunks: [': keep-alive\n'] },
  '/broken': { chunks: ['data: {"jsonrpc":'], end: 'break' },
};

describe('mcpHttpFetch', () => {
  let server: Server;
  let base: URL;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.once('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          return;
        }
        const stream = streams[path];
        if (stream === undefined) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
        const write = (index: number): void => {
          const chunk = stream.chunks[index];
          if (chunk === undefined) {
            if (stream.end === 'break') res.socket?.destroy();
            else res.end();
            return;
          }
          res.write(chunk);
          setTimeout(() => {
            write(index + 1);
          }, 10);
        };
        write(0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, body: unknown = { jsonrpc: '2.0', id: 7, method: 'tools/call' }) =>
    mcpHttpFetch(new URL(path, base), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });

  it.each(['/answer', '/answer-crlf', '/answer-split'])(
    'hands over a stream that opens with the answer as JSON (%s)',
    async (path) => {
      const response = await post(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('mcp-session-id')).toBe('s-1');
      expect(await response.json()).toEqual(answer);
    },
  );

  it('gives the JSON answer the body semantics of a fetch Response', async () => {
    const response = await post('/answer');
    expect(response.ok).toBe(true);
    expect(response.headers.has('Content-Type')).toBe(true);
    expect([...response.headers.keys()]).toContain('mcp-session-id');
    expect(response.headers.get('content-length')).toBeNull();
    // Looking at the body does not use it up; reading it does, once.
    const stream = response.body;
    expect(response.bodyUsed).toBe(false);
    const copy = response.clone();
    expect(await copy.json()).toEqual(answer);
    const reader = (stream as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    expect(JSON.parse(new TextDecoder().decode(value))).toEqual(answer);
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    const other = await post('/answer');
    expect(new TextDecoder().decode(await other.arrayBuffer())).toBe(JSON.stringify(answer));
  });

  it.each(['/progress-first', '/priming', '/other-id', '/no-event'])(
    'passes any other stream on as it came, bytes already read included (%s)',
    async (path) => {
      const response = await post(path);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const expected = (streams[path]?.chunks ?? []).map(String).join('');
      expect(await response.text()).toBe(expected);
    },
  );

  it('passes a broken stream on broken', async () => {
    const response = await post('/broken');
    await expect(response.text()).rejects.toThrow();
  });

  it('leaves GETs, notifications, batches and JSON answers alone', async () => {
    const get = await mcpHttpFetch(new URL('/answer', base));
    expect(get.headers.get('content-type')).toBe('text/event-stream');
    await get.body?.cancel();
    const notification = await post('/answer', { jsonrpc: '2.0', method: 'notifications/x' });
    expect(notification.headers.get('content-type')).toBe('text/event-stream');
    await notification.body?.cancel();
    const batch = await post('/answer', [{ jsonrpc: '2.0', id: 7, method: 'tools/call' }]);
    expect(batch.headers.get('content-type')).toBe('text/event-stream');
    await batch.body?.cancel();
    const json = await post('/json');
    expect(await json.json()).toEqual(answer);
  });

  describe('under the SDK client, against a real MCP server answering in event streams', () => {
    let fixture: HttpFixture;
    let client: Client;
    beforeAll(async () => {
      fixture = await startHttpFixture();
      client = new Client({ name: 'test', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(fixture.url, { fetch: mcpHttpFetch }));
    });
    afterAll(async () => {
      await client.close();
      await fixture.close();
    });

    it('calls tools, with and without progress before the answer', async () => {
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      expect(sum.structuredContent).toEqual({ sum: 5 });
      const steps: number[] = [];
      const counted = await client.callTool(
        { name: 'progress', arguments: { steps: 3 } },
        {
          onprogress: ({ progress: step }) => steps.push(step),
        },
      );
      expect(steps).toEqual([1, 2, 3]);
      expect(counted.isError).not.toBe(true);
    });
  });
});
