import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { POST_HEADERS } from './testing/raw-client.js';

// A 2026-07-28 client has no session stream: an upstream's log messages reach it on the stream
// of its own call to that server, at the level its request's _meta names, as they would straight
// from the server.

let running: RunningToolkit;
let gateway: HttpGateway;

beforeAll(async () => {
  const toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  running = await runToolkit(toolkit);
  gateway = await serveHttp(running.toolkit, { port: 0 });
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
});

let ids = 0;

/** Every message of a raw 2026-07-28 `tools/call` answer, in order. */
async function call(
  name: string,
  args: object,
  logLevel: string | undefined,
): Promise<{ method?: string; params?: unknown; result?: unknown }[]> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      ...POST_HEADERS,
      'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++ids,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
          ...(logLevel === undefined ? {} : { 'io.modelcontextprotocol/logLevel': logLevel }),
        },
      },
    }),
  });
  const text = await response.text();
  const lines = text.startsWith('{')
    ? [text]
    : [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]);
  return lines.map((line) => JSON.parse(line ?? 'null') as { method?: string; result?: unknown });
}

describe("an upstream's log messages during a 2026-07-28 call", () => {
  it('come before the result on the call’s stream, at the level asked for', async () => {
    const messages = await call('fx__log', { message: 'hello', level: 'warning' }, 'info');
    expect(messages.map((message) => message.method ?? 'result')).toEqual([
      'notifications/message',
      'result',
    ]);
    expect(messages[0]?.params).toEqual({ level: 'warning', logger: 'fx/fixture', data: 'hello' });
  });

  it('stay away below the level asked for, and without one', async () => {
    for (const level of ['error', undefined]) {
      const messages = await call('fx__log', { message: 'quiet', level: 'warning' }, level);
      expect(messages.map((message) => message.method ?? 'result')).toEqual(['result']);
    }
  });
});
