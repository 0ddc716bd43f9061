import { callModern } from '@toolplane/fixtures';
import { createToolkit, defineTool, getSession, type Toolkit } from '@toolplane/toolkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE_BODY, openRequest } from '../testing/raw-client.js';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from './serve.js';

// A call's `Session.source` is its HTTP request's source, which per-caller shares (the builtins'
// worker threads, code mode's sandboxes) key on: one client's many sessions are one caller.

let toolkit: Toolkit;
const gateways: HttpGateway[] = [];

beforeAll(() => {
  const where = defineTool({
    name: 'where',
    description: 'Says which source called it.',
    input: { type: 'object' },
    run: () => getSession().source ?? 'no source',
  });
  toolkit = createToolkit({ tools: [where] });
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});
afterAll(async () => {
  await toolkit.close();
});

async function serve(options: Partial<ServeHttpOptions> = {}): Promise<URL> {
  const gateway = await serveHttp(toolkit, { port: 0, ...options });
  gateways.push(gateway);
  return gateway.url;
}

/** POSTs `body` from `localAddress`; the session ID it was given and its last JSON-RPC message. */
function post(
  url: URL,
  body: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ session: string | undefined; message: unknown }> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      url,
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const last = text.startsWith('{')
            ? text
            : [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1];
          resolve({
            session: res.headers['mcp-session-id'] as string | undefined,
            message: last === undefined ? undefined : JSON.parse(last),
          });
        });
      },
      { localAddress, headers },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What `where` says when called in a new 2025 session opened from `localAddress`. */
async function sourceInSession(
  url: URL,
  localAddress: string,
  sent: Record<string, string> = {},
): Promise<string> {
  const { session = '' } = await post(url, INITIALIZE_BODY, localAddress, sent);
  const headers = { ...sent, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await post(
    url,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    localAddress,
    headers,
  );
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'builtin__where', arguments: {} },
  };
  const { message } = await post(url, JSON.stringify(call), localAddress, headers);
  return textOf(message);
}

function textOf(message: unknown): string {
  const { result } = message as { result?: { content?: { text?: string }[] } };
  return (result?.content ?? []).map((block) => block.text).join('');
}

describe('the source of a call over HTTP', () => {
  it('is the same for every session from one address, and another from another', async () => {
    const url = await serve();
    const first = await sourceInSession(url, '127.0.0.1');
    expect(first).toBe('127.0.0.1');
    expect(await sourceInSession(url, '127.0.0.1')).toBe(first);
    expect(await sourceInSession(url, '127.0.0.2')).toBe('127.0.0.2');
  });

  it('is the client a trusted proxy forwards', async () => {
    const url = await serve({ trustedProxies: ['127.0.0.3'] });
    const forwarded = { 'x-forwarded-for': '192.0.2.7' };
    expect(await sourceInSession(url, '127.0.0.3', forwarded)).toBe('192.0.2.7');
    // From anyone else, the header is not believed.
    expect(await sourceInSession(url, '127.0.0.4', forwarded)).toBe('127.0.0.4');
  });

  it.each([true, false])('is known to a 2026-07-28 call (call lane: %s)', async (callLane) => {
    const url = await serve({ callLane });
    const answer = await callModern(url, 'builtin__where', {});
    expect(textOf(answer)).toBe('127.0.0.1');
  });
});
