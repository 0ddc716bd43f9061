import type { ServerResponse } from 'node:http';
import { SdkErrorCode } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { recordEvents } from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { afterEach, describe, expect, it } from 'vitest';
import { runToolkit } from '../../testing/run-toolkit.js';
import { createToolkit } from '../../toolkit/toolkit.js';
import { createConnector, type Connector, type ConnectorEvent } from '../connector.js';
import { serveMcpHttp, type SeenRequest, type ServedMcp } from '../testing/serve-mcp-http.js';

// A call that waited for its answer would wait out the SDK's 60 s request timeout, three times the
// test timeout: every "fails at once" below fails by timing out if the connector lets it hang.

/** Settles once the latest `cut` call's connection is broken, after its first event ID. */
let cut: Promise<void> = Promise.resolve();

/** Breaks the connection under `res` once an event with an ID has gone out on it. */
function breakAfterEventId(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const write = res.write.bind(res) as (chunk: unknown, done: () => void) => boolean;
    res.write = ((chunk: unknown) =>
      write(chunk, () => {
        const text =
          typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
        if (text.includes('id: ')) {
          res.socket?.destroy();
          resolve();
        }
      })) as typeof res.write;
  });
}

function pollingServer(): McpServer {
  const server = new McpServer({ name: 'polling', version: '1.0.0' });
  server.registerTool(
    'poll',
    { description: 'Ends its response stream, then answers: the answer waits for a resumption.' },
    (ctx) => {
      const closeSSE = ctx.http?.closeSSE;
      if (closeSSE === undefined) throw new Error('the stream is not resumable');
      closeSSE();
      return { content: [{ type: 'text', text: 'polled' }] };
    },
  );
  server.registerTool(
    'cut',
    { description: 'Breaks the connection its response stream runs on, then answers.' },
    async () => {
      await cut;
      return { content: [{ type: 'text', text: 'cut' }] };
    },
  );
  return server;
}

const isCall = (request: SeenRequest, name: string): boolean => {
  const body = request.body as { method?: unknown; params?: { name?: unknown } } | undefined;
  return body?.method === 'tools/call' && body.params?.name === name;
};
const isResumption = (request: SeenRequest): boolean =>
  request.method === 'GET' && request.headers['last-event-id'] !== undefined;

const served: ServedMcp[] = [];
const open: Connector[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connector) => connector.close()));
  await Promise.all(served.splice(0).map((server) => server.close()));
  cut = Promise.resolve();
});

async function start(
  intercept: (request: SeenRequest, res: ServerResponse) => boolean = () => false,
  resumable = true,
) {
  const server = await serveMcpHttp({
    server: pollingServer,
    resumable,
    retryInterval: 10,
    intercept,
  });
  served.push(server);
  const log = recordEvents<ConnectorEvent>();
  const connector = createConnector(server.url, { namespace: 'polling', onEvent: log.push });
  open.push(connector);
  connector.start();
  await connector.ready();
  const client = connector.client;
  if (client === undefined) throw new Error('not connected');
  return { server, connector, client, events: log.events };
}

/** Answers every resumption with an empty event stream: a server that lost the events. */
function emptyResumption(request: SeenRequest, res: ServerResponse): boolean {
  if (!isResumption(request)) return false;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(': nothing to replay\n\n');
  return true;
}

describe('Connector response streams over Streamable HTTP', () => {
  it('resumes a call whose stream the server ends before the answer, from its last event ID', async () => {
    const { server, client } = await start();
    const result = await client.callTool({ name: 'poll', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'polled' }]);
    expect(server.requests.filter(isResumption)).toHaveLength(1);
  });

  it('resumes a call whose stream breaks after an event ID, and keeps the connection', async () => {
    const { server, client, events } = await start((request, res) => {
      if (isCall(request, 'cut')) cut = breakAfterEventId(res);
      return false;
    });
    const result = await client.callTool({ name: 'cut', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'cut' }]);
    expect(server.requests.filter(isResumption)).toHaveLength(1);
    await client.ping();
    expect(events.filter((event) => event.type === 'state_change').map((e) => e.state)).toEqual([
      'connecting',
      'connected',
    ]);
  });

  it.each([404, 405])(
    'fails a call at once when the server answers its resumption with HTTP %i',
    async (status) => {
      const { client, connector } = await start((request, res) => {
        if (!isResumption(request)) return false;
        res.writeHead(status).end();
        return true;
      });
      await expect(client.callTool({ name: 'poll', arguments: {} })).rejects.toMatchObject({
        code: SdkErrorCode.ConnectionClosed,
      });
      // The server still answers, so the connection stays.
      await client.ping();
      expect(connector.state).toBe('connected');
    },
  );

  it('fails a call at once when its stream ends before the answer with no event ID', async () => {
    const { client } = await start((request, res) => {
      if (!isCall(request, 'poll')) return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(': cut short by a proxy\n\n');
      return true;
    }, false);
    await expect(client.callTool({ name: 'poll', arguments: {} })).rejects.toMatchObject({
      code: SdkErrorCode.ConnectionClosed,
    });
  });

  it('fails a call at once when its resumed stream ends before the answer with no event ID', async () => {
    const { server, client } = await start(emptyResumption);
    await expect(client.callTool({ name: 'poll', arguments: {} })).rejects.toMatchObject({
      code: SdkErrorCode.ConnectionClosed,
    });
    expect(server.requests.filter(isResumption)).toHaveLength(1);
  });

  it('fails a toolkit call with an execution error when the answer is lost', async () => {
    const server = await serveMcpHttp({
      server: pollingServer,
      resumable: true,
      retryInterval: 10,
      intercept: emptyResumption,
    });
    served.push(server);
    const toolkit = createToolkit();
    toolkit.addConnector(server.url, { namespace: 'polling' });
    const { stop } = await runToolkit(toolkit);
    try {
      const failure = await toolkit.callTool('polling:poll').catch((error: unknown) => error);
      expect(ToolError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'execution' });
    } finally {
      await stop();
    }
  });
});
