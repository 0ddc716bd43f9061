import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { cancelMidCall } from '../testing/slow-calls.js';
import { wireProgress } from '../testing/wire-progress.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayCommand } from '../testing/gateway-command.js';
import { INITIALIZE_REQUEST } from '../testing/raw-client.js';
import { RawSession } from '../testing/raw-session.js';
import { serveStdio } from './serve.js';

describe('serveStdio', () => {
  let client: Client;
  let transport: StdioClientTransport;
  beforeAll(async () => {
    const { command, args } = gatewayCommand([
      { namespace: 'fx', source: fixtureCommand('stdio') },
    ]);
    transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
    client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  it('serves the upstream tools from a gateway child process', async () => {
    expect(transport.pid).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fx__add', 'fx__slow']));
    const result = await client.callTool({ name: 'fx__add', arguments: { a: 5, b: 6 } });
    expect(result.structuredContent).toEqual({ sum: 11 });
  });

  it('relays progress and a cancel through two stdio hops', async () => {
    // Read off the wire: the SDK client drops a progress notification that shares a read with
    // the result (see wireProgress), and on a loaded machine most reads carry several.
    const seen = wireProgress(transport);
    await client.callTool(
      { name: 'fx__progress', arguments: { steps: 3, delayMs: 20 } },
      { onprogress: () => undefined },
    );
    expect(seen).toEqual([1, 2, 3]);
    expect(await cancelMidCall(client, 'stdio-gw')).toEqual({ cancelled: true });
  });

  it('lists and renders the upstream prompt and resource', async () => {
    const prompt = await client.getPrompt({ name: 'fx__echo', arguments: { text: 'x' } });
    expect(JSON.stringify(prompt.messages)).toContain('Repeat after me: x');
    const readme = await client.readResource({ uri: 'fixture://readme' });
    expect(readme.contents[0]).toMatchObject({ text: '# Fixture\n' });
  });
});

describe('serveStdio with unreadable input', () => {
  it('answers a line that is not JSON or not JSON-RPC with an error and keeps serving', async () => {
    const { command, args } = gatewayCommand([]);
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const lines = createInterface({ input: child.stdout });
      const received: unknown[] = [];
      const waiters = new Set<() => void>();
      lines.on('line', (line) => {
        received.push(JSON.parse(line));
        for (const wake of waiters) wake();
      });
      const answerTo = (id: number) =>
        new Promise<unknown>((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(new Error(`no answer to ${id}; got ${JSON.stringify(received)}`));
          }, 10_000);
          const check = (): void => {
            const found = received.find((m) => (m as { id?: unknown }).id === id);
            if (found === undefined) return;
            clearTimeout(timer);
            waiters.delete(check);
            resolve(found);
          };
          waiters.add(check);
          check();
        });
      const send = (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`);
      send(INITIALIZE_REQUEST);
      await answerTo(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      child.stdin.write('{"jsonrpc": "2.0", "id": 2, "method": \n');
      send({ not: 'json-rpc' });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      expect(await answerTo(3)).toMatchObject({ result: { tools: [] } });
      const errors = received
        .filter((m) => (m as { id?: unknown }).id === null)
        .map((m) => (m as { error: { code: number } }).error.code);
      expect(errors).toEqual([-32700, -32600]);
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});

describe('serveStdio, as the client leaves', () => {
  it('ends once stdin closes after a cancelled call, not waiting for the answer it will not send', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    void toolkit.run();
    await toolkit.ready();
    const session = new RawSession();
    let ended: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (ended = resolve));
    // A drain far past the test's timeout: only the cancelled call could hold the end that long.
    await serveStdio(toolkit, {
      stdin: session.stdin,
      stdout: session.stdout,
      drainMs: 600_000,
      onEnd: () => {
        ended();
      },
    });
    try {
      await session.exchange(INITIALIZE_REQUEST, 1);
      session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const call = (id: number, name: string, args: object) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args },
      });
      session.send(call(2, 'fx__slow', { ms: 60_000, label: 'leaving' }));
      // Answered once the slow call has reached the upstream (one pipe, read in order).
      await session.exchange(call(3, 'fx__echo', { text: 'after' }), 3);
      session.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 2, reason: 'the user stopped it' },
      });
      // The upstream saw the cancel: nothing will answer request 2.
      const seen = await session.exchange(call(4, 'fx__wait-cancelled', { label: 'leaving' }), 4);
      expect(seen.join('\n')).toContain('"structuredContent":{"cancelled":true}');
      session.stdin.end();
      await end;
    } finally {
      await toolkit.close();
    }
  });
});
