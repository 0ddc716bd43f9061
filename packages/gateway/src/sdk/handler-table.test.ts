import {
  InMemoryTransport,
  LATEST_PROTOCOL_VERSION,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { GatewayServer } from './gateway-server.js';
import { LazyMap, LazySet } from './lazy-collections.js';

const info = { name: 'test', version: '0' };

/** The SDK's table of a server's request handlers (private in its types). */
const tableOf = (server: GatewayServer): Map<string, unknown> =>
  (server as unknown as { _requestHandlers: Map<string, unknown> })._requestHandlers;

/** Connects `server` over a linked pair, initializes it and sends `requests`; their answers, in the order of `requests` (the server may answer out of order). */
async function ask(server: GatewayServer, requests: readonly object[]): Promise<JSONRPCMessage[]> {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: JSONRPCMessage[] = [];
  const want = requests.length + 1;
  const done = new Promise<void>((resolve) => {
    client.onmessage = (message) => {
      answers.push(message);
      if (answers.length === want) resolve();
    };
  });
  await server.connect(serverSide);
  await client.start();
  await client.send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: info },
  });
  for (const request of requests) await client.send(request as JSONRPCMessage);
  await done;
  await server.close();
  const idOf = (message: JSONRPCMessage): unknown => ('id' in message ? message.id : undefined);
  return requests.map((request) => {
    const answer = answers.find((message) => idOf(message) === (request as { id: unknown }).id);
    if (answer === undefined) throw new Error('unanswered');
    return answer;
  });
}

describe('a gateway server registers its per-session handlers on first use', () => {
  it('answers through a deferred handler, bad params as -32602, and keeps an unused one unbuilt', async () => {
    const server = new GatewayServer(info, { capabilities: { tools: {}, prompts: {} } });
    server.setRequestHandler('tools/list', () => Promise.resolve({ tools: [] }));
    const unused = (): Promise<never> => Promise.reject(new Error('not called'));
    server.setRequestHandler('prompts/list', unused);
    const table = tableOf(server);
    // Deferred: the handler as it was given, not the SDK's wrapper around it.
    expect(table.has('tools/list')).toBe(true);
    expect([...table.values()]).toContain(unused);
    const answers = await ask(server, [
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 7 } },
    ]);
    expect(answers[0]).toMatchObject({ id: 1, result: { tools: [] } });
    expect(answers[1]).toMatchObject({ id: 2, error: { code: -32602 } });
    expect([...table.values()]).toContain(unused);
  });

  it('still refuses a handler for a capability the server lacks, when it is set', () => {
    const server = new GatewayServer(info, { capabilities: { tools: {} } });
    expect(() => {
      server.setRequestHandler('prompts/list', () => Promise.resolve({ prompts: [] }));
    }).toThrow(/prompts/);
  });

  it('lets a deferred handler be removed or replaced before it was used', async () => {
    const server = new GatewayServer(info, { capabilities: { tools: {}, prompts: {} } });
    server.setRequestHandler('prompts/list', () => Promise.resolve({ prompts: [] }));
    server.removeRequestHandler('prompts/list');
    expect(tableOf(server).has('prompts/list')).toBe(false);
    server.setRequestHandler('tools/list', () => Promise.resolve({ tools: [] }));
    server.setRequestHandler('tools/list', () =>
      Promise.resolve({ tools: [{ name: 'second', inputSchema: { type: 'object' as const } }] }),
    );
    const answers = await ask(server, [
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'prompts/list', params: {} },
    ]);
    expect(answers[0]).toMatchObject({ id: 1, result: { tools: [{ name: 'second' }] } });
    expect(answers[1]).toMatchObject({ id: 2, error: { code: -32601 } });
  });
});

describe('lazy collections', () => {
  it('behave as a Map and a Set, empty or not', () => {
    const map = new LazyMap<string, number>();
    expect([...map]).toEqual([]);
    expect(map.get('a')).toBeUndefined();
    map.set('a', 1).set('b', 2);
    expect([...map.values()]).toEqual([1, 2]);
    expect(map.delete('a')).toBe(true);
    expect(map.size).toBe(1);
    map.clear();
    expect(map.has('b')).toBe(false);
    const set = new LazySet<string>();
    expect(set.has('x')).toBe(false);
    set.add('x');
    expect([...set]).toEqual(['x']);
    expect(set.delete('x')).toBe(true);
    expect(set.size).toBe(0);
  });
});
