import { fileURLToPath } from 'node:url';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import { entryArgs, fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { createAjvValidator } from '@toolplane/validator-ajv';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { GatewayServer } from './sdk/gateway-server.js';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import type { ServedGateway } from './options.js';
import { serveStdio } from './stdio/serve.js';
import { serveHttp } from './http/serve.js';
import { INITIALIZE_BODY, INITIALIZE_REQUEST, POST_HEADERS } from './testing/raw-client.js';
import { RawSession } from './testing/raw-session.js';

const rawUpstream = {
  command: process.execPath,
  args: entryArgs(fileURLToPath(new URL('./testing/raw-upstream.ts', import.meta.url))),
};

const call = (id: number, name: string, args?: unknown, meta?: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name,
    ...(args === undefined ? {} : { arguments: args }),
    ...(meta === undefined ? {} : { _meta: meta }),
  },
});

/**
 * An answer's messages as its JSON body would carry them: an answer slower than the transport's
 * headers bound (a loaded machine) goes out as an event stream, on either way alike.
 */
function unframed(contentType: string, text: string): string {
  if (!contentType.startsWith('text/event-stream')) return `${contentType} ${text}`;
  const data = [...text.matchAll(/^data: (.*)$/gm)].map(([, line]) => line ?? '');
  return data.length === 1 ? `application/json ${data[0] ?? ''}` : `${contentType} ${text}`;
}

describe('the call lane', () => {
  let toolkit: Toolkit;
  const gateways: ServedGateway[] = [];
  const lane = new RawSession();
  const sdk = new RawSession();
  let dispatch: MockInstance<(request: JSONRPCRequest) => void>;
  /** How many tools/call requests went through the SDK's dispatch so far. */
  const dispatched = (): number =>
    dispatch.mock.calls.filter(([request]) => request.method === 'tools/call').length;

  beforeAll(async () => {
    toolkit = createToolkit({ validator: createAjvValidator() });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    toolkit.addConnector(rawUpstream, { namespace: 'raw' });
    void toolkit.run();
    await toolkit.ready();
    const prototype = GatewayServer.prototype as unknown as {
      _onrequest: (request: JSONRPCRequest) => void;
    };
    dispatch = vi.spyOn(prototype, '_onrequest');
    for (const [session, callLane] of [
      [lane, true],
      [sdk, false],
    ] as const) {
      gateways.push(
        await serveStdio(toolkit, {
          stdin: session.stdin,
          stdout: session.stdout,
          callLane,
          instanceId: 'parity',
        }),
      );
      await session.exchange(INITIALIZE_REQUEST, 1);
      session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // The tool table is built (the lane takes no call before it is: the SDK's way waits).
      await session.exchange({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, 2);
    }
  });
  afterAll(async () => {
    dispatch.mockRestore();
    for (const gateway of gateways) await gateway.close();
    await toolkit.close();
  });

  /** Sends `message` to both gateways; returns their lines, and whether the lane served it. */
  async function both(message: string | object, id: number) {
    const before = dispatched();
    const viaLane = await lane.exchange(message, id);
    const laneDispatched = dispatched() - before;
    const viaSdk = await sdk.exchange(message, id);
    expect(dispatched() - before - laneDispatched).toBe(1);
    return { viaLane, viaSdk, served: laneDispatched === 0 };
  }

  it.each([
    ['a success', call(10, 'fx__echo', { text: 'hello' })],
    ['structuredContent', call(11, 'fx__add', { a: 2, b: 3 })],
    ['an isError result from upstream', call(12, 'fx__report-error', { message: 'no' })],
    ['an upstream tool that throws', call(13, 'fx__fail', { message: 'boom' })],
    ['an upstream JSON-RPC error', call(14, 'raw__rpc-error', {})],
    ['a result zod reorders', call(15, 'raw__odd-result', {})],
    ['input failing validation', call(16, 'fx__add', { a: 'two', b: 3 })],
    ['no arguments', call(17, 'fx__add')],
    ['plain _meta', call(18, 'fx__echo', { text: 'm' }, { 'example.com/k': 1 })],
    ['a large payload', call(19, 'fx__echo', { text: 'x'.repeat(1024 * 1024) })],
    [
      'nested __proto__ keys',
      call(20, 'fx__json-text', JSON.parse('{"value":{"__proto__":{"a":1},"b":2}}')),
    ],
  ])('answers %s byte for byte as the SDK way does, on the lane', async (_name, message) => {
    const { viaLane, viaSdk, served } = await both(JSON.stringify(message), message.id);
    expect(viaLane).toEqual(viaSdk);
    expect(served).toBe(true);
  });

  it.each([
    ['an unknown tool', call(30, 'fx__nope', {})],
    ['a tool of an unknown server', call(31, 'nope__x', {})],
    [
      'a top-level __proto__ key in arguments',
      '{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"fx__json-text","arguments":{"__proto__":{"a":1},"value":1}}}',
    ],
    ['a progress token', call(33, 'fx__progress', { steps: 2 }, { progressToken: 'p' })],
    [
      'a 2026-07-28 request',
      call(
        34,
        'fx__echo',
        { text: 'new' },
        { 'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION },
      ),
    ],
    [
      'a task-augmented call',
      {
        ...call(35, 'fx__echo', { text: 't' }),
        params: { name: 'fx__echo', arguments: { text: 't' }, task: { ttl: 1000 } },
      },
    ],
    ['arguments that are not an object', call(36, 'fx__echo', ['x'])],
    ['a name that is not a string', call(37, 7 as unknown as string, {})],
  ])('answers %s the SDK way', async (_name, message) => {
    const id = typeof message === 'string' ? 32 : message.id;
    const { viaLane, viaSdk, served } = await both(message, id);
    expect(viaLane).toEqual(viaSdk);
    expect(served).toBe(false);
  });

  it('answers nothing to a call cancelled with notifications/cancelled, as the SDK way does', async () => {
    for (const [session, label] of [
      [lane, 'lane-cancel'],
      [sdk, 'sdk-cancel'],
    ] as const) {
      session.send(call(40, 'fx__slow', { ms: 30_000, label }));
      // Answered after the slow call reached the upstream (one pipe, read in order).
      await session.exchange(call(41, 'fx__echo', { text: 'after' }), 41);
      session.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 40, reason: 'test' },
      });
      const seen = await session.exchange(call(42, 'fx__wait-cancelled', { label }), 42);
      expect(seen).toEqual([
        '{"result":{"content":[{"type":"text","text":"true"}],"structuredContent":{"cancelled":true}},"jsonrpc":"2.0","id":42}',
      ]);
    }
  });

  it('answers the same over Streamable HTTP, on the lane', async () => {
    const served = await Promise.all(
      [true, false].map((callLane) => serveHttp(toolkit, { port: 0, callLane })),
    );
    try {
      const post = (url: URL, body: string, headers: Record<string, string> = {}) =>
        fetch(url, { method: 'POST', headers: { ...POST_HEADERS, ...headers }, body });
      const sessions = await Promise.all(
        served.map(async ({ url }) => {
          const init = await post(url, INITIALIZE_BODY);
          const headers = {
            'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
            'mcp-protocol-version': '2025-06-18',
          };
          await post(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers);
          await (await post(url, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}', headers)).text();
          return async (body: string) => {
            const answer = await post(url, body, headers);
            return `${String(answer.status)} ${unframed(answer.headers.get('content-type') ?? '', await answer.text())}`;
          };
        }),
      );
      const [viaLane, viaSdk] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
      for (const message of [
        call(50, 'fx__add', { a: 1, b: 2 }),
        call(51, 'fx__report-error', { message: 'no' }),
        call(52, 'raw__rpc-error', {}),
        call(53, 'fx__add', { a: 'one' }),
      ]) {
        const body = JSON.stringify(message);
        const before = dispatched();
        const fromLane = await viaLane(body);
        expect(dispatched()).toBe(before);
        const fromSdk = await viaSdk(body);
        expect(dispatched()).toBe(before + 1);
        expect(fromLane).toBe(fromSdk);
      }
    } finally {
      await Promise.all(served.map((gateway) => gateway.close()));
    }
  });
});
