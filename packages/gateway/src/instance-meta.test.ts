import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { INSTANCE_META_KEY } from './http/serve.js';
import { withErrorMeta } from './jsonrpc.js';
import { useHttpGateway } from './testing/http-gateway.js';

const MODERN = '2026-07-28';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const gateway = useHttpGateway(useFixtureToolkit(), { instanceId: 'gw-9' });

/** The JSON-RPC answer to one POST (plain JSON or the last SSE event). */
async function post(
  body: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; answer: { error?: { code: number; data?: unknown } } }> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : ([...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1] ?? '');
  return { status: response.status, answer: JSON.parse(data) as never };
}

const modern = (method: string, params: object, name?: string) =>
  post(
    { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } },
    {
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
  );

async function legacySession(): Promise<Record<string, string>> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '0' },
      },
    }),
  });
  await response.text();
  const headers = {
    'mcp-session-id': response.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return headers;
}

const tagged = { data: { _meta: { [INSTANCE_META_KEY]: 'gw-9' } } };

describe('the instance ID in the _meta of JSON-RPC errors', () => {
  it('is in a 2026 tools/call of an unknown tool and an upstream prompt error', async () => {
    const unknown = await modern('tools/call', { name: 'fx__nope', arguments: {} }, 'fx__nope');
    expect(unknown.answer.error).toMatchObject({ code: -32602, ...tagged });
    // The fixture's echo prompt needs `text`: the upstream refuses, the gateway relays it.
    const upstream = await modern('prompts/get', { name: 'fx__echo', arguments: {} }, 'fx__echo');
    expect(upstream.answer.error).toMatchObject(tagged);
  });

  it("is in the SDK entry's own refusal of a 2026 request (a header that contradicts the body)", async () => {
    const mismatch = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' },
    );
    expect(mismatch.status).toBeGreaterThanOrEqual(400);
    expect(mismatch.answer.error).toMatchObject(tagged);
  });

  it("is in a 2025 session's answers: an unknown tool, an upstream error, an unknown method", async () => {
    const session = await legacySession();
    const unknown = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fx__nope' } },
      session,
    );
    expect(unknown.answer.error).toMatchObject({ code: -32602, ...tagged });
    const upstream = await post(
      { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'fx__echo', arguments: {} } },
      session,
    );
    expect(upstream.answer.error).toMatchObject(tagged);
    const unknownMethod = await post({ jsonrpc: '2.0', id: 4, method: 'no/such' }, session);
    expect(unknownMethod.answer.error).toMatchObject({ code: -32601, ...tagged });
  });
});

describe('withErrorMeta', () => {
  const meta = { [INSTANCE_META_KEY]: 'x' };

  it('merges into existing data and _meta, leaving results and non-object data alone', () => {
    expect(
      withErrorMeta(
        {
          jsonrpc: '2.0',
          id: 1,
          error: { code: 1, message: 'm', data: { a: 1, _meta: { b: 2 } } },
        },
        meta,
      ),
    ).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: 1, message: 'm', data: { a: 1, _meta: { b: 2, ...meta } } },
    });
    const result = { jsonrpc: '2.0', id: 1, result: {} };
    expect(withErrorMeta(result, meta)).toBe(result);
    const text = { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm', data: 'why' } };
    expect(withErrorMeta(text, meta)).toBe(text);
  });

  it('does not let a __proto__ key in data reach the prototype', () => {
    const hostile = JSON.parse(
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"__proto__":{"polluted":true}}}}',
    ) as object;
    const out = withErrorMeta(hostile, meta) as { error: { data: Record<string, unknown> } };
    expect(out.error.data._meta).toEqual(meta);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
