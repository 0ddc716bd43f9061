import {
  Client,
  ProtocolError,
  SdkError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { createToolkit, defineTool, getSession } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { mcpToolResult } from '@toolplane/toolrun';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { GatewayHub } from './hub.js';
import { ERROR_META_KEY } from './call-results.js';
import { serveHttp } from './http/serve.js';
import { useHttpGateway } from './testing/http-gateway.js';
import { cancelMidCall } from './testing/slow-calls.js';
import { wireProgress } from './testing/wire-progress.js';

const TOKEN = 'era-secret';
const auth = { authorization: `Bearer ${TOKEN}` };

const toolkit = useFixtureToolkit({
  tools: [
    defineTool({
      name: 'listed',
      description: 'Answers with a list as structured content, as 2026-07-28 allows.',
      input: z.object({}),
      run: () => mcpToolResult({ content: [], structuredContent: ['one', 'two'] }),
    }),
    defineTool({
      name: 'broken',
      description: 'Always fails.',
      input: z.object({}),
      run: () => {
        throw new Error('broken on purpose');
      },
    }),
    defineTool({
      name: 'ask',
      description: 'Asks the caller for a name (a 2025-era elicitation).',
      input: z.object({}),
      run: async () => {
        const answer = await getSession().elicit({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        });
        return { answer };
      },
    }),
  ],
  connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
});
const gateway = useHttpGateway(toolkit, {
  token: TOKEN,
  instructions: 'Tools of fx and the builtins.',
  maxBodyBytes: 64 * 1024,
});

/** A v2 client pinned to 2026-07-28 (no fallback), or a 2025 one. */
async function connect(era: 'modern' | 'legacy', headers = auth): Promise<Client> {
  const client = new Client(
    { name: `era-${era}`, version: '0' },
    era === 'modern'
      ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } }
      : { capabilities: { elicitation: {} } },
  );
  if (era === 'legacy') {
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
  }
  await client.connect(
    new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers } }),
  );
  return client;
}

/** A raw JSON-RPC POST, for what a client library would not send. */
async function post(
  body: unknown,
  headers: Record<string, string> = {},
  url: URL = gateway.url,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: response.status, json: JSON.parse(data) as unknown };
}

const envelope = (version = MODERN_PROTOCOL_VERSION) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

describe('serveHttp, both eras on one endpoint', () => {
  it('negotiates 2026-07-28 with a pinned v2 client and answers server/discover', async () => {
    const client = await connect('modern');
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const discover = client.getDiscoverResult();
      expect(discover?.supportedVersions).toContain(MODERN_PROTOCOL_VERSION);
      expect(discover?.capabilities.tools).toBeDefined();
      expect(discover?.instructions).toBe('Tools of fx and the builtins.');
      expect(client.getServerVersion()?.name).toBe('toolplane-gateway');
    } finally {
      await client.close();
    }
  });

  it('lists and calls tools, prompts and resources for a 2026 client while a 2025 session runs', async () => {
    const legacy = await connect('legacy');
    const modern = await connect('modern');
    try {
      const sessionsBefore = gateway.sessionCount;
      const [modernTools, legacyTools] = await Promise.all([
        modern.listTools(),
        legacy.listTools(),
      ]);
      expect(modernTools.tools.map((t) => t.name).sort()).toEqual(
        legacyTools.tools.map((t) => t.name).sort(),
      );
      const sum = await modern.callTool({ name: 'fx__add', arguments: { a: 2, b: 40 } });
      expect(sum.structuredContent).toEqual({ sum: 42 });
      // 2026-07-28 takes structured content of any JSON value; a 2025 client gets it as text.
      const listed = await modern.callTool({ name: 'builtin__listed', arguments: {} });
      expect(listed.structuredContent).toEqual(['one', 'two']);
      const legacyListed = await legacy.callTool({ name: 'builtin__listed', arguments: {} });
      expect(legacyListed).not.toHaveProperty('structuredContent');
      const failed = await modern.callTool({ name: 'builtin__broken', arguments: {} });
      expect(failed.isError).toBe(true);
      expect(failed._meta?.[ERROR_META_KEY]).toMatchObject({ toolId: 'builtin:broken' });
      const prompt = await modern.getPrompt({ name: 'fx__echo', arguments: { text: 'hi' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Repeat after me: hi' });
      const readme = await modern.readResource({ uri: 'fixture://readme' });
      expect(readme.contents[0]).toMatchObject({ uri: 'fixture://readme', text: '# Fixture\n' });
      const completion = await modern.complete({
        ref: { type: 'ref/prompt', name: 'fx__echo' },
        argument: { name: 'text', value: 'h' },
      });
      expect(Array.isArray(completion.completion.values)).toBe(true);
      const prompts = await modern.listPrompts();
      const resources = await modern.listResources();
      expect(prompts.prompts).toEqual((await legacy.listPrompts()).prompts);
      expect(resources.resources).toEqual((await legacy.listResources()).resources);
      // A 2026 request leaves no session behind; the 2025 client's is still there.
      expect(gateway.sessionCount).toBe(sessionsBefore);
      expect(
        (await legacy.callTool({ name: 'fx__add', arguments: { a: 1, b: 1 } })).structuredContent,
      ).toEqual({ sum: 2 });
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it('relays progress and a cancel (the closed request stream) for a 2026 client', async () => {
    const client = await connect('modern');
    try {
      // Read off the wire: the SDK client drops progress that shares a read with the result.
      const seen = client.transport === undefined ? [] : wireProgress(client.transport);
      await client.callTool(
        { name: 'fx__progress', arguments: { steps: 3, delayMs: 20 } },
        { onprogress: () => undefined },
      );
      expect(seen).toEqual([1, 2, 3]);
      expect(await cancelMidCall(client, 'era-cancel')).toEqual({ cancelled: true });
    } finally {
      await client.close();
    }
  });

  it('asks a 2026 caller for a builtin’s elicitation in an input_required round', async () => {
    const bare = await connect('modern');
    const asking = new Client(
      { name: 'era-asking', version: '0' },
      {
        versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
        capabilities: { elicitation: { form: {} } },
      },
    );
    asking.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { name: 'Grace' },
    }));
    await asking.connect(
      new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: auth } }),
    );
    const legacy = await connect('legacy');
    try {
      const answered = await asking.callTool({ name: 'builtin__ask', arguments: {} });
      expect(answered.structuredContent).toMatchObject({
        answer: { action: 'accept', content: { name: 'Grace' } },
      });
      // A 2026 client that declared no elicitation is not asked.
      const refused = await bare.callTool({ name: 'builtin__ask', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(refused._meta?.[ERROR_META_KEY]).toMatchObject({
        message: expect.stringContaining('does not support form elicitation'),
      });
      const legacyAnswer = await legacy.callTool({ name: 'builtin__ask', arguments: {} });
      expect(legacyAnswer.structuredContent).toMatchObject({ answer: { action: 'accept' } });
    } finally {
      await Promise.all([bare.close(), asking.close(), legacy.close()]);
    }
  });

  it('answers a 2025-only method asked in a 2026 request with an error naming the era', async () => {
    const { status, json } = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'logging/setLevel',
        params: { level: 'info', _meta: envelope() },
      },
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'logging/setLevel' },
    );
    // The SDK's entry sends -32601 with HTTP 404 on 2026-07-28.
    expect(status).toBe(404);
    expect(json).toMatchObject({ id: 1, error: { code: -32601 } });
    expect((json as { error: { message: string } }).error.message).toMatch(/2025 era.*2026-07-28/);
  });

  it('gives a 2026 client cache hints on lists', async () => {
    const { json } = await post(
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/list' },
    );
    expect(json).toMatchObject({ id: 5, result: { ttlMs: 60_000, cacheScope: 'private' } });
    expect((json as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  });

  it('answers an unsupported version with -32022 and the supported list', async () => {
    const { json } = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope('2099-01-01') } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(json).toMatchObject({
      id: 2,
      error: {
        code: -32022,
        data: { supported: expect.arrayContaining([MODERN_PROTOCOL_VERSION]) },
      },
    });
  });

  it('answers a header that contradicts the body with HTTP 400 and -32020', async () => {
    const { status, json } = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'prompts/list' },
    );
    expect(status).toBe(400);
    expect(json).toMatchObject({ error: { code: -32020 } });
  });

  it('keeps the token and the body limit for 2026 requests', async () => {
    await expect(connect('modern', { authorization: 'Bearer wrong' })).rejects.toBeInstanceOf(
      SdkError,
    );
    const huge = await post(
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {
          name: 'fx__add',
          arguments: { a: 'x'.repeat(70 * 1024), b: 1 },
          _meta: envelope(),
        },
      },
      {
        'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'fx__add',
      },
    );
    expect(huge.status).toBe(413);
  });

  it('answers a tool the gateway does not have with -32602 for a 2026 client', async () => {
    const client = await connect('modern');
    try {
      const error = await client
        .callTool({ name: 'nothing__here', arguments: {} })
        .catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('tells a 2026 client of a list change on its subscriptions/listen stream', async () => {
    const client = await connect('modern');
    try {
      let heard!: () => void;
      const changed = new Promise<void>((resolve) => {
        heard = resolve;
      });
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        heard();
      });
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter.toolsListChanged).toBe(true);
      toolkit.addTool(
        defineTool({
          name: 'late',
          description: 'Added while a 2026 client listens.',
          input: z.object({}),
          run: () => 'here',
        }),
      );
      await changed;
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('builtin__late');
      await subscription.close();
    } finally {
      toolkit.removeBuiltin('late');
      await client.close();
    }
  });
});

// A toolkit of its own: a call cancelled earlier stays counted as in flight by the connector's
// call tracker (the upstream never answers it), and a second caller makes a stdio upstream's
// elicitation impossible to tie to its call.
describe('serveHttp, input_required rounds for a 2026 client', () => {
  const fresh = useFixtureToolkit();
  const served = useHttpGateway(fresh, { token: TOKEN });

  it('bridges a 2025 upstream elicitation into an input_required round a 2026 client answers', async () => {
    const client = new Client(
      { name: 'era-rounds', version: '0' },
      {
        versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
        capabilities: { elicitation: { form: {} } },
      },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      expect(request.params.message).toBe('what is the answer?');
      return { action: 'accept', content: { answer: '42' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(served.url, { requestInit: { headers: auth } }),
    );
    try {
      const result = await client.callTool({
        name: 'fx__elicit',
        arguments: { message: 'what is the answer?' },
      });
      const text = result.content
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('');
      expect(JSON.parse(text)).toEqual({ action: 'accept', content: { answer: '42' } });
    } finally {
      await client.close();
    }
  });

  it('refuses a forged, replayed or expired requestState with -32602', async () => {
    const asking = {
      ...envelope(),
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const headers = {
      'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': 'fx__elicit',
    };
    const call = (id: number, extra: Record<string, unknown> = {}) =>
      post(
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'fx__elicit', arguments: { message: 'sure?' }, _meta: asking, ...extra },
        },
        headers,
        served.url,
      );
    const first = (await call(10)).json as {
      result: { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    };
    expect(first.result.resultType).toBe('input_required');
    const [key] = Object.keys(first.result.inputRequests);
    expect(first.result.inputRequests[key ?? '']).toMatchObject({ method: 'elicitation/create' });
    const state = first.result.requestState;
    const answer = { [key ?? '']: { action: 'decline' } };
    const forged = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await call(11, { requestState: forged, inputResponses: answer })).json).toMatchObject({
      error: { code: -32602 },
    });
    const done = (await call(12, { requestState: state, inputResponses: answer })).json as {
      result: { content: { text: string }[] };
    };
    expect(JSON.parse(done.result.content[0]?.text ?? '')).toMatchObject({ action: 'decline' });
    expect((await call(13, { requestState: state, inputResponses: answer })).json).toMatchObject({
      error: { code: -32602 },
    });

    const brief = await serveHttp(fresh, { port: 0, token: TOKEN, inputRoundTtlMs: 50 });
    try {
      const opened = await fetch(brief.url, {
        method: 'POST',
        headers: {
          ...auth,
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 20,
          method: 'tools/call',
          params: { name: 'fx__elicit', arguments: { message: 'late?' }, _meta: asking },
        }),
      });
      const text = await opened.text();
      const json = JSON.parse(
        text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null'),
      ) as { result: { requestState: string; inputRequests: Record<string, unknown> } };
      await new Promise((resolve) => setTimeout(resolve, 120));
      const late = await fetch(brief.url, {
        method: 'POST',
        headers: {
          ...auth,
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 21,
          method: 'tools/call',
          params: {
            name: 'fx__elicit',
            arguments: { message: 'late?' },
            _meta: asking,
            requestState: json.result.requestState,
            inputResponses: {
              [Object.keys(json.result.inputRequests)[0] ?? '']: { action: 'cancel' },
            },
          },
        }),
      });
      const lateText = await late.text();
      expect(
        JSON.parse(
          lateText.startsWith('{') ? lateText : (/^data: (.*)$/m.exec(lateText)?.[1] ?? 'null'),
        ),
      ).toMatchObject({ error: { code: -32602 } });
    } finally {
      await brief.close();
    }
  });
});

describe('serveHttp, what a 2026 request leaves behind', () => {
  it('detaches every per-request server from the hub, listen streams and refusals included', async () => {
    const toolkit = createToolkit();
    const served = await runToolkit(toolkit);
    const http = await serveHttp(served.toolkit, { port: 0 });
    const attach = vi.spyOn(GatewayHub.prototype, 'attach');
    const detach = vi.spyOn(GatewayHub.prototype, 'detach');
    try {
      const client = new Client(
        { name: 'era-leak', version: '0' },
        { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
      );
      await client.connect(new StreamableHTTPClientTransport(http.url));
      // The client caches the list (ttlMs): one tools/list reaches the gateway.
      for (let i = 0; i < 5; i++) await client.listTools();
      await client.callTool({ name: 'nothing', arguments: {} }).catch(() => undefined);
      const subscription = await client.listen({ toolsListChanged: true });
      await subscription.close();
      await client.close();
      await vi.waitFor(() => {
        expect(attach.mock.calls.length).toBeGreaterThanOrEqual(3);
        expect(detach.mock.calls.length).toBe(attach.mock.calls.length);
      });
    } finally {
      attach.mockRestore();
      detach.mockRestore();
      await http.close();
      await served.stop();
    }
  });
});
