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
import { serveHttp, type HttpGateway } from './http/serve.js';
import { POST_HEADERS } from './testing/raw-client.js';
import { RawSession } from './testing/raw-session.js';

// The 2026-07-28 call lane against the SDK's way: the same requests to a gateway with the lane
// and one without, over Streamable HTTP and stdio, answers compared line for line.

const rawUpstream = {
  command: process.execPath,
  args: entryArgs(fileURLToPath(new URL('./testing/raw-upstream.ts', import.meta.url))),
};

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

/** A 2026-07-28 tools/call request: `meta` joins the envelope, `params` the call's params. */
const call = (
  id: number,
  name: unknown,
  args?: unknown,
  meta: object = {},
  params: object = {},
): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name,
    ...(args === undefined ? {} : { arguments: args }),
    _meta: { ...ENVELOPE, ...meta },
    ...params,
  },
});

/** The headers a 2026 client sends with `request`. */
const headersOf = (request: JSONRPCRequest): Record<string, string> => ({
  ...POST_HEADERS,
  'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
  'mcp-method': request.method,
  'mcp-name': String((request.params as { name?: unknown }).name),
});

/** An answer with what differs from run to run (sealed states, round keys) made the same. */
function settled(text: string): string {
  return text
    .replace(/"requestState":"[^"]*"/g, '"requestState":"…"')
    .replace(/"inputRequests":\{"[^"]*"/g, '"inputRequests":{"…"');
}

// One toolkit behind the gateways with the lane, one behind those without: an upstream's
// elicitation over stdio is tied to its caller only while one call of that client asks.
const toolkits: Toolkit[] = [];
let dispatch: MockInstance<(request: JSONRPCRequest) => void>;
/** How many tools/call requests went through the SDK's dispatch so far. */
const dispatched = (): number =>
  dispatch.mock.calls.filter(([request]) => request.method === 'tools/call').length;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const toolkit = createToolkit({ validator: createAjvValidator() });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    toolkit.addConnector(rawUpstream, { namespace: 'raw' });
    void toolkit.run();
    toolkits.push(toolkit);
  }
  await Promise.all(toolkits.map((toolkit) => toolkit.ready()));
  const prototype = GatewayServer.prototype as unknown as {
    _onrequest: (request: JSONRPCRequest) => void;
  };
  dispatch = vi.spyOn(prototype, '_onrequest');
});
afterAll(async () => {
  dispatch.mockRestore();
  await Promise.all(toolkits.map((toolkit) => toolkit.close()));
});

/** Requests the lane serves, and what each shows. */
const laned: [string, JSONRPCRequest][] = [
  ['a success', call(10, 'fx__echo', { text: 'hello' })],
  ['structuredContent', call(11, 'fx__add', { a: 2, b: 3 })],
  ['an isError result from upstream', call(12, 'fx__report-error', { message: 'no' })],
  ['an upstream tool that throws', call(13, 'fx__fail', { message: 'boom' })],
  ['an upstream JSON-RPC error', call(14, 'raw__rpc-error', {})],
  ['a result zod reorders', call(15, 'raw__odd-result', {})],
  ['input failing validation', call(16, 'fx__add', { a: 'two', b: 3 })],
  ['no arguments', call(17, 'fx__add')],
  ['plain _meta, passed upstream', call(18, 'fx__meta', {}, { 'example.com/k': 1 })],
  ['progress', call(19, 'fx__progress', { steps: 2 }, { progressToken: 'p' })],
  [
    'log messages at the asked level',
    call(
      20,
      'fx__log',
      { level: 'warning', message: 'careful' },
      { 'io.modelcontextprotocol/logLevel': 'info' },
    ),
  ],
  [
    'nested __proto__ keys',
    call(22, 'fx__json-text', JSON.parse('{"value":{"__proto__":{"a":1},"b":2}}')),
  ],
];

/** Requests the lane leaves to the SDK's way. */
const unlaned: [string, JSONRPCRequest][] = [
  ['an unknown tool', call(30, 'fx__nope', {})],
  ['arguments that are not an object', call(31, 'fx__echo', ['x'])],
  ['a name that is not a string', call(32, 7, {})],
  ['a task-augmented call', call(33, 'fx__echo', { text: 't' }, {}, { task: { ttl: 1000 } })],
  ['a reserved _meta key', call(34, 'fx__echo', { text: 'r' }, { 'io.modelcontextprotocol/x': 1 })],
  [
    'an envelope without client capabilities',
    {
      jsonrpc: '2.0',
      id: 35,
      method: 'tools/call',
      params: {
        name: 'fx__echo',
        arguments: { text: 'e' },
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION },
      },
    },
  ],
  [
    'a retry with a requestState',
    call(36, 'fx__echo', { text: 's' }, {}, { requestState: 'forged', inputResponses: {} }),
  ],
];

/**
 * An input_required call sent by `send` to the gateway with the lane (first) and without: its
 * first rounds (the lane's and the SDK way's), each answered by a retry (the SDK's way on both),
 * whose answers must agree and carry the answer given.
 */
async function inputRounds(sends: ((request: JSONRPCRequest) => Promise<string>)[]) {
  const rounds: string[] = [];
  const finals: string[] = [];
  for (const send of sends) {
    const round = await send(call(50, 'fx__elicit', { message: 'sure?' }));
    rounds.push(round);
    const { result } = JSON.parse(round.slice(round.indexOf('{'))) as {
      result: { inputRequests: Record<string, unknown>; requestState: string };
    };
    const [key = ''] = Object.keys(result.inputRequests);
    const answers = { [key]: { action: 'accept', content: { answer: '42' } } };
    finals.push(
      await send(
        call(
          51,
          'fx__elicit',
          { message: 'sure?' },
          {},
          {
            requestState: result.requestState,
            inputResponses: answers,
          },
        ),
      ),
    );
  }
  expect(finals[0]).toBe(finals[1]);
  expect(finals[0]).toContain('\\"answer\\":\\"42\\"');
  return rounds;
}

describe('the 2026-07-28 call lane over Streamable HTTP', () => {
  const gateways: HttpGateway[] = [];
  let viaLane: (body: string, headers: Record<string, string>) => Promise<string>;
  let viaSdk: typeof viaLane;

  beforeAll(async () => {
    for (const [index, callLane] of [true, false].entries()) {
      const toolkit = toolkits[index] as Toolkit;
      gateways.push(await serveHttp(toolkit, { port: 0, callLane, instanceId: 'parity' }));
    }
    [viaLane, viaSdk] = gateways.map(({ url }) => async (body, headers) => {
      const answer = await fetch(url, { method: 'POST', headers, body });
      return `${String(answer.status)} ${answer.headers.get('content-type') ?? ''} ${settled(await answer.text())}`;
    }) as [typeof viaLane, typeof viaLane];
    // The tool table is built (the lane takes no call before it is: the SDK's way waits).
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } };
    const headers = { ...POST_HEADERS, 'mcp-protocol-version': MODERN_PROTOCOL_VERSION };
    for (const send of [viaLane, viaSdk])
      await send(JSON.stringify(list), { ...headers, 'mcp-method': 'tools/list' });
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
  });

  /** Sends `request` to both gateways; returns their answers, and whether the lane served it. */
  async function both(request: JSONRPCRequest, headers = headersOf(request)) {
    const body = JSON.stringify(request);
    const before = dispatched();
    const fromLane = await viaLane(body, headers);
    const laneCount = dispatched() - before;
    const fromSdk = await viaSdk(body, headers);
    const sdkCount = dispatched() - before - laneCount;
    // The lane dispatches nothing; the SDK's way dispatches a call it does not refuse first.
    if (laneCount !== 0) expect(laneCount).toBe(sdkCount);
    return { fromLane, fromSdk, served: laneCount === 0 && sdkCount === 1 };
  }

  it.each(laned)('answers %s as the SDK way does, on the lane', async (_name, request) => {
    const { fromLane, fromSdk, served } = await both(request);
    expect(fromLane).toBe(fromSdk);
    expect(served).toBe(true);
  });

  it.each(unlaned)('answers %s the SDK way', async (_name, request) => {
    const { fromLane, fromSdk, served } = await both(request);
    expect(fromLane).toBe(fromSdk);
    expect(served).toBe(false);
  });

  it.each([
    ['an Mcp-Name header naming another tool', { 'mcp-name': 'fx__add' }],
    ['no Mcp-Name header', { 'mcp-name': undefined }],
    ['a Base64-encoded Mcp-Name header', { 'mcp-name': '=?base64?ZnhfX2VjaG8=?=' }],
    ['no Mcp-Method header', { 'mcp-method': undefined }],
    ['an Mcp-Method header naming another method', { 'mcp-method': 'tools/list' }],
    ['no MCP-Protocol-Version header', { 'mcp-protocol-version': undefined }],
  ])('answers a call with %s the SDK way', async (_name, change) => {
    const request = call(40, 'fx__echo', { text: 'h' });
    const headers: Record<string, string> = { ...headersOf(request) };
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) Reflect.deleteProperty(headers, key);
      else headers[key] = value;
    }
    const { fromLane, fromSdk, served } = await both(request, headers);
    expect(fromLane).toBe(fromSdk);
    expect(served).toBe(false);
  });

  it('asks for input as the SDK way does, on the lane, and takes the retry', async () => {
    const raw = ([lane, sdk]: string[]) => [lane ?? '', sdk ?? ''] as const;
    const sends = gateways.map(({ url }) => async (request: JSONRPCRequest) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: headersOf(request),
        body: JSON.stringify(request),
      });
      return `${String(answer.status)} ${answer.headers.get('content-type') ?? ''} ${await answer.text()}`;
    });
    const before = dispatched();
    const [laneRound, sdkRound] = raw(await inputRounds(sends));
    expect(dispatched()).toBe(before + 3);
    expect(settled(laneRound)).toBe(settled(sdkRound));
  });

  it('cancels the upstream call when the client goes away, as the SDK way does', async () => {
    for (const [gateway, label] of [
      [gateways[0], 'lane-gone'],
      [gateways[1], 'sdk-gone'],
    ] as const) {
      const url = gateway?.url ?? '';
      const controller = new AbortController();
      const slow = call(60, 'fx__slow', { ms: 30_000, label }, { progressToken: 'slow' });
      const response = await fetch(url, {
        method: 'POST',
        headers: headersOf(slow),
        body: JSON.stringify(slow),
        signal: controller.signal,
      });
      // The first progress event: the upstream has the call.
      const reader = response.body?.getReader();
      await reader?.read();
      controller.abort();
      const wait = call(61, 'fx__wait-cancelled', { label, timeoutMs: 5000 });
      const seen = await fetch(url, {
        method: 'POST',
        headers: headersOf(wait),
        body: JSON.stringify(wait),
      });
      expect(await seen.json()).toMatchObject({
        result: { structuredContent: { cancelled: true } },
      });
    }
  });
});

describe('the 2026-07-28 call lane over stdio', () => {
  const gateways: ServedGateway[] = [];
  const lane = new RawSession();
  const sdk = new RawSession();

  beforeAll(async () => {
    for (const [index, [session, callLane]] of (
      [
        [lane, true],
        [sdk, false],
      ] as const
    ).entries()) {
      gateways.push(
        await serveStdio(toolkits[index] as Toolkit, {
          stdin: session.stdin,
          stdout: session.stdout,
          callLane,
          instanceId: 'parity',
        }),
      );
      // The connection opens in 2026-07-28 (a client probes with server/discover), and the
      // tool table is built.
      await session.exchange(
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } },
        1,
      );
      await session.exchange(
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: ENVELOPE } },
        2,
      );
    }
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
  });

  async function both(request: JSONRPCRequest) {
    const before = dispatched();
    const viaLane = await lane.exchange(request, request.id as number, settled);
    const laneCount = dispatched() - before;
    const viaSdk = await sdk.exchange(request, request.id as number, settled);
    const sdkCount = dispatched() - before - laneCount;
    if (laneCount !== 0) expect(laneCount).toBe(sdkCount);
    return { viaLane, viaSdk, served: laneCount === 0 && sdkCount === 1 };
  }

  it.each(laned)(
    'answers %s line for line as the SDK way does, on the lane',
    async (_n, request) => {
      const { viaLane, viaSdk, served } = await both(request);
      expect(viaLane).toEqual(viaSdk);
      expect(served).toBe(true);
    },
  );

  it.each(unlaned)('answers %s the SDK way', async (_name, request) => {
    const { viaLane, viaSdk, served } = await both(request);
    expect(viaLane).toEqual(viaSdk);
    expect(served).toBe(false);
  });

  it('asks for input as the SDK way does, on the lane, and takes the retry', async () => {
    const before = dispatched();
    const rounds = await inputRounds(
      [lane, sdk].map((session) => async (request: JSONRPCRequest) => {
        const lines = await session.exchange(request, request.id as number);
        return lines.at(-1) ?? '';
      }),
    );
    expect(dispatched()).toBe(before + 3);
    expect(settled(rounds[0] ?? '')).toBe(settled(rounds[1] ?? ''));
  });

  it('answers nothing to a call cancelled with notifications/cancelled, as the SDK way does', async () => {
    for (const [session, label] of [
      [lane, 'lane-cancel-2026'],
      [sdk, 'sdk-cancel-2026'],
    ] as const) {
      session.send(call(70, 'fx__slow', { ms: 30_000, label }));
      // Answered after the slow call reached the upstream (one pipe, read in order).
      await session.exchange(call(71, 'fx__echo', { text: 'after' }), 71);
      session.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 70, reason: 'test', _meta: ENVELOPE },
      });
      const seen = await session.exchange(call(72, 'fx__wait-cancelled', { label }), 72);
      expect(seen).toHaveLength(1);
      expect(JSON.parse(seen[0] ?? '')).toMatchObject({
        id: 72,
        result: { structuredContent: { cancelled: true } },
      });
    }
  });
});
