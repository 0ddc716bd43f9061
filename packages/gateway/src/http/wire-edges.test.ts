import { gzipSync } from 'node:zlib';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from '../eras.js';
import { useHttpGateway } from '../testing/http-gateway.js';
import { INITIALIZE_BODY, POST_HEADERS } from '../testing/raw-client.js';
import { serveHttp } from './serve.js';

const toolkit = useFixtureToolkit({
  connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
});
const gateway = useHttpGateway(toolkit, { pageSize: 1 });

/** A raw POST of `body` (text or bytes, sent as is); the answer's status, headers and JSON. */
async function post(
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...headers },
    body,
  });
  const text = await response.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: response.status, headers: response.headers, text, json: JSON.parse(data) };
}

const envelope = (version = MODERN_PROTOCOL_VERSION) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** A 2026-07-28 request of `method` with `params`, answered without a session. */
async function modern(method: string, params: Record<string, unknown> = {}) {
  return post(
    JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: envelope() } }),
    { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': method },
  );
}

describe('a POST body with a content coding', () => {
  it('is refused with 415, naming identity, and Accept-Encoding: identity', async () => {
    const answer = await post(gzipSync(INITIALIZE_BODY), { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(415);
    expect(answer.headers.get('accept-encoding')).toBe('identity');
    expect(answer.json).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/identity/) },
    });
  });

  it('is read when its coding is identity', async () => {
    const answer = await post(INITIALIZE_BODY, { 'content-encoding': 'identity' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: 1, result: { protocolVersion: expect.any(String) } });
  });
});

describe('a list cursor', () => {
  it('is refused with -32602 by every other list, naming its own', async () => {
    const tools = await modern('tools/list');
    const cursor = (tools.json as { result: { nextCursor?: string } }).result.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      const answer = await modern(method, { cursor });
      expect(answer.json, method).toMatchObject({
        error: { code: -32602, message: expect.stringContaining('tools/list') },
      });
    }
    // A cursor of the tool index's (a search cursor, say): none of the lists issued it.
    const foreign = Buffer.from('1.a.k2j4h5').toString('base64url');
    const refused = await modern('tools/list', { cursor: foreign });
    expect(refused.json).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('tools/list') },
    });
    const next = await modern('tools/list', { cursor });
    expect(next.json).toMatchObject({ result: { tools: [expect.anything()] } });
  });
});

describe('a request naming 2025-11-25 in its _meta', () => {
  const request = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: { _meta: envelope('2025-11-25') },
    });

  it('is told -32022, listing 2025-11-25 and that initialize opens it, without a session', async () => {
    const answer = await post(request(3));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      id: 3,
      error: {
        code: -32022,
        message: expect.stringContaining('initialize'),
        data: {
          supported: expect.arrayContaining(['2025-11-25', MODERN_PROTOCOL_VERSION]),
          requested: '2025-11-25',
        },
      },
    });
  });

  it('is served by a stateless gateway, which needs no session for the 2025 era', async () => {
    const stateless = await serveHttp(toolkit, { port: 0, stateless: true });
    try {
      const response = await fetch(stateless.url, {
        method: 'POST',
        headers: POST_HEADERS,
        body: request(5),
      });
      const text = await response.text();
      const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
      expect(JSON.parse(data)).toMatchObject({ id: 5, result: { tools: expect.any(Array) } });
    } finally {
      await stateless.close();
    }
  });

  it('is served in the session it names', async () => {
    const opened = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      }),
    );
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session).not.toBe('');
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
    const answer = await post(request(4), headers);
    expect(answer.json).toMatchObject({ id: 4, result: { tools: [expect.anything()] } });
  });
});

describe('a request ID beyond the safe integers', () => {
  it('is refused as an Invalid Request with id null, never answered under an altered ID', async () => {
    const id = '123456789012345678901234567890';
    const meta = JSON.stringify(envelope());
    const modernRequest = await post(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${meta}}}`,
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/list' },
    );
    const sessionless = await post(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    for (const answer of [modernRequest, sessionless]) {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });
});
