import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { gatewayCommand } from './testing/gateway-command.js';
import { cancelMidCall } from './testing/slow-calls.js';
import { wireProgress } from './testing/wire-progress.js';

const upstreams = [{ namespace: 'fx', source: fixtureCommand('stdio') }];

describe('serveStdio, a 2026-07-28 connection', () => {
  let modern: Client;
  let legacy: Client;
  let modernProgress: number[];
  beforeAll(async () => {
    const { command, args } = gatewayCommand(upstreams, { instructions: 'fx behind stdio' });
    modern = new Client(
      { name: 'era-modern', version: '0' },
      { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
    );
    legacy = new Client({ name: 'era-legacy', version: '0' });
    // Two gateway processes side by side, one per era (stdio is a connection per process).
    const modernTransport = new StdioClientTransport({ command, args, stderr: 'inherit' });
    await Promise.all([
      modern.connect(modernTransport),
      legacy.connect(new StdioClientTransport({ command, args, stderr: 'inherit' })),
    ]);
    modernProgress = wireProgress(modernTransport);
  });
  afterAll(async () => {
    await Promise.all([modern.close(), legacy.close()]);
  });

  it('opens with server/discover and serves 2026-07-28 while a 2025 client is served', async () => {
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getProtocolEra()).toBe('legacy');
    expect(modern.getDiscoverResult()?.supportedVersions).toContain(MODERN_PROTOCOL_VERSION);
    expect(modern.getDiscoverResult()?.instructions).toBe('fx behind stdio');
    const [mine, theirs] = await Promise.all([modern.listTools(), legacy.listTools()]);
    expect(mine.tools.map((t) => t.name).sort()).toEqual(theirs.tools.map((t) => t.name).sort());
    const sum = await modern.callTool({ name: 'fx__add', arguments: { a: 20, b: 22 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
  });

  it('relays progress and a cancel for the 2026 connection', async () => {
    // Every step, in order, before the result, also with no time between them: what the gateway
    // sends, read off the wire (see wireProgress for why not through `onprogress`).
    for (const delayMs of [0, 20]) {
      modernProgress.length = 0;
      await modern.callTool(
        { name: 'fx__progress', arguments: { steps: 3, delayMs } },
        { onprogress: () => undefined },
      );
      expect(modernProgress).toEqual([1, 2, 3]);
    }
    expect(await cancelMidCall(modern, 'stdio-era-cancel')).toEqual({ cancelled: true });
  });
});

describe('serveStdio, input_required rounds', () => {
  it('bridges an upstream elicitation into a round the 2026 stdio client answers', async () => {
    const { command, args } = gatewayCommand(upstreams);
    const client = new Client(
      { name: 'era-stdio-rounds', version: '0' },
      {
        versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
        capabilities: { elicitation: { form: {} } },
      },
    );
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { answer: 'stdio' },
    }));
    await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
    try {
      const result = await client.callTool({ name: 'fx__elicit', arguments: { message: 'hi?' } });
      const text = result.content
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('');
      expect(JSON.parse(text)).toEqual({ action: 'accept', content: { answer: 'stdio' } });
    } finally {
      await client.close();
    }
  });
});

/** A gateway child over raw stdio lines: what a test sends, and the answer to each ID. */
function rawGateway() {
  const { command, args } = gatewayCommand([]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout });
  const received = new Map<unknown, unknown>();
  const waiters = new Set<() => void>();
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { id?: unknown };
    received.set(message.id, message);
    for (const wake of waiters) wake();
  });
  return {
    send: (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`),
    answerTo: (id: number) =>
      new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no answer to ${String(id)}`));
        }, 10_000);
        const check = (): void => {
          if (!received.has(id)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(received.get(id));
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

const envelope = (version: string) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

describe('serveStdio, the opening exchange', () => {
  it('pins a connection that opens with server/discover to 2026-07-28 and names the era of a 2025-only method', async () => {
    const { send, answerTo, close } = rawGateway();
    try {
      const meta = envelope(MODERN_PROTOCOL_VERSION);
      send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
      expect(await answerTo(1)).toMatchObject({
        result: { supportedVersions: expect.arrayContaining([MODERN_PROTOCOL_VERSION]) },
      });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } });
      expect(await answerTo(2)).toMatchObject({ result: { tools: [] } });
      send({
        jsonrpc: '2.0',
        id: 3,
        method: 'logging/setLevel',
        params: { level: 'debug', _meta: meta },
      });
      const refused = (await answerTo(3)) as { error: { code: number; message: string } };
      expect(refused.error.code).toBe(-32601);
      expect(refused.error.message).toMatch(/2025 era.*2026-07-28/);
    } finally {
      await close();
    }
  });

  it('tells a request naming 2025-11-25 before initialize that initialize opens that era, then serves it', async () => {
    const { send, answerTo, close } = rawGateway();
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: envelope('2025-11-25') },
      });
      expect(await answerTo(1)).toMatchObject({
        error: {
          code: -32022,
          message: expect.stringContaining('initialize'),
          data: {
            supported: expect.arrayContaining(['2025-11-25', MODERN_PROTOCOL_VERSION]),
            requested: '2025-11-25',
          },
        },
      });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      });
      expect(await answerTo(2)).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      expect(await answerTo(3)).toMatchObject({ result: { tools: [] } });
    } finally {
      await close();
    }
  });
});
