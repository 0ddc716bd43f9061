import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpServerTransport, MAX_UNSENT } from './transport.js';

// A session's messages not tied to a request go to its GET stream; one the gateway sends before
// the client has opened that stream (an upstream asking for roots right after initialize) waits
// for it instead of vanishing, which left the request unanswered for good.

const servers: Server[] = [];
const streams: AbortController[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.abort();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => {
            resolve();
          });
        }),
    ),
  );
});

/** Serves `transport`'s GET stream on 127.0.0.1; resolves with its URL. */
async function serveGet(transport: HttpServerTransport): Promise<URL> {
  const server = createServer((_req, res) => {
    transport.handleGet(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}/mcp`);
}

/** Opens the GET stream and reads its first `count` events. */
async function firstEvents(url: URL, count: number): Promise<JSONRPCMessage[]> {
  const stream = new AbortController();
  streams.push(stream);
  const response = await fetch(url, { signal: stream.signal });
  if (response.body === null) throw new Error('no body');
  const decoder = new TextDecoder();
  const events: JSONRPCMessage[] = [];
  let text = '';
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    for (const line of text.split('\n').filter((l) => l.startsWith('data: '))) {
      events.push(JSON.parse(line.slice('data: '.length)) as JSONRPCMessage);
    }
    if (events.length >= count) return events.slice(0, count);
    events.length = 0;
  }
  throw new Error(`the stream ended after ${String(events.length)} events`);
}

describe('HttpServerTransport', () => {
  it('keeps what it sends before the GET stream opens for that stream, in order', async () => {
    const transport = new HttpServerTransport('session-1');
    const url = await serveGet(transport);
    const asked: JSONRPCMessage = { jsonrpc: '2.0', id: 7, method: 'roots/list' };
    const told: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    await transport.send(asked);
    await transport.send(told);
    expect(await firstEvents(url, 2)).toEqual([asked, told]);
    await transport.close();
  });

  it('keeps only the latest ones for a client that never opens the stream', async () => {
    const transport = new HttpServerTransport('session-2');
    const url = await serveGet(transport);
    for (let n = 0; n < MAX_UNSENT + 5; n++) {
      await transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });
    }
    const [first] = await firstEvents(url, 1);
    expect(first).toMatchObject({ params: { n: 5 } });
    await transport.close();
  });
});
