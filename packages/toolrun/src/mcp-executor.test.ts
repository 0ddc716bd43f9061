import { getEventListeners } from 'node:events';
import type { Client } from '@modelcontextprotocol/client';
import {
  connectHttp,
  connectInMemory,
  connectStdio,
  everythingCommand,
  startHttpFixture,
  TINY_PNG_BASE64,
  type ConnectedClient,
  type HttpFixture,
  type StdioConnection,
} from '@toolplane/fixtures';
import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection } from './testing/helpers.js';
import { createLocalRegistry } from './local-registry.js';
import { createMcpExecutor } from './mcp-executor.js';
import { createRunner } from './runner/runner.js';
import type { Runner } from './runner/types.js';
import type { ProgressEvent, StreamEvent } from './types.js';

async function indexServer(index: ToolIndex, serverName: string, client: Client): Promise<void> {
  const { tools } = await client.listTools();
  index.registerMcpTools(serverName, tools, { namespace: serverName });
}

/** Starts `slow` and resolves once the server has reported that it is running. */
function startSlow(
  runner: Runner,
  label: string,
  signal?: AbortSignal,
): { pending: Promise<unknown>; started: Promise<void> } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const pending = runner.run(
    'fx:slow',
    { ms: 60_000, label },
    {
      signal,
      onProgress: () => {
        markStarted();
      },
    },
  );
  // Observed by the caller; this keeps an early rejection from going unhandled.
  pending.catch(() => undefined);
  return { pending, started };
}

async function serverSawCancel(runner: Runner, label: string): Promise<unknown> {
  const seen = await runner.run('fx:wait-cancelled', { label, timeoutMs: 10_000 });
  return seen.structured;
}

/** Arguments with no JSON text, which the transport cannot send. */
function notJsonArguments(): Record<string, unknown>[] {
  const cyclic: Record<string, unknown> = { text: 'a' };
  cyclic.self = cyclic;
  let deep: Record<string, unknown> = {};
  const root = { text: 'a', deep };
  for (let i = 0; i < 100_000; i++) deep = deep.next = {};
  return [cyclic, { text: 'a', n: 10n }, root];
}

/** Each of {@link notJsonArguments} fails `fx:echo` with `invalid_argument`; then it still works. */
async function expectNotJsonRefused(runner: Runner): Promise<void> {
  for (const args of notJsonArguments()) {
    expect((await rejection(runner.run('fx:echo', args))).code).toBe('invalid_argument');
  }
  expect((await runner.run('fx:echo', { text: 'still here' })).structured).toBe('still here');
}

describe('the MCP executor against the fixture server over stdio', () => {
  let connection: StdioConnection;
  let runner: Runner;
  let index: ToolIndex;

  beforeAll(async () => {
    connection = await connectStdio();
    index = createIndex();
    await indexServer(index, 'fx', connection.client);
    const local = createLocalRegistry()
      .register('pair', () => ({ a: 2, b: 3 }))
      .register('sum', (args) => {
        const { previous } = args as { previous: { a: number; b: number } };
        return previous.a + previous.b;
      });
    index.registerTool(
      { name: 'pair', namespace: 'local', inputSchema: { type: 'object' } },
      {
        kind: 'local',
        local: { name: 'pair' },
      },
    );
    index.registerTool(
      { name: 'sum', namespace: 'local', inputSchema: { type: 'object' } },
      {
        kind: 'local',
        local: { name: 'sum' },
      },
    );
    runner = createRunner({
      index,
      local,
      mcp: createMcpExecutor({ clients: { fx: connection.client } }),
    });
  });

  afterAll(async () => {
    await connection.close();
  });

  it('returns structuredContent as the result and keeps the raw MCP result', async () => {
    const result = await runner.run('fx:add', { a: 2, b: 40 });
    expect(result.structured).toEqual({ sum: 42 });
    expect(result.mcpResult?.content).toEqual([{ type: 'text', text: '42' }]);
    expect(result.backend).toEqual({ kind: 'mcp', mcp: { serverName: 'fx' } });
  });

  it('parses a single JSON text block and keeps plain text as a string', async () => {
    const json = await runner.run('fx:json-text', { value: { list: [1, 2], ok: true } });
    expect(json.structured).toEqual({ list: [1, 2], ok: true });
    const plain = await runner.run('fx:echo', { text: 'hello world' });
    expect(plain.structured).toBe('hello world');
  });

  it('refuses arguments with no JSON text as invalid_argument, not execution', async () => {
    await expectNotJsonRefused(runner);
  });

  it('returns several blocks as an array, keeping images and resources as content', async () => {
    const result = await runner.run('fx:mixed');
    expect(result.structured).toEqual([
      'a picture',
      { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'fixture://note', text: 'a note' } },
    ]);
  });

  it('rejects an isError result as execution with the server’s text as the message', async () => {
    const error = await rejection(runner.run('fx:report-error', { message: 'quota exceeded' }));
    expect(error.code).toBe('execution');
    expect(error.message).toContain('quota exceeded');
    expect(error.op).toBe('execute');
    expect(error.toolId).toBe('fx:report-error');
  });

  it('rejects a tool that throws on the server as execution', async () => {
    const error = await rejection(runner.run('fx:fail', { message: 'kaput' }));
    expect(error.code).toBe('execution');
  });

  it('validates arguments before they reach the server', async () => {
    const error = await rejection(runner.run('fx:add', { a: 'one', b: 2 }));
    expect(error.code).toBe('validation');
    expect(error.errors?.length).toBeGreaterThan(0);
  });

  it('turns the server’s progress notifications into progress events, in order', async () => {
    const events: ProgressEvent[] = [];
    const result = await runner.run(
      'fx:progress',
      { steps: 4 },
      { onProgress: (event) => events.push(event) },
    );
    expect(events.map((e) => e.progress)).toEqual([1, 2, 3, 4]);
    expect(events[0]).toMatchObject({ total: 4, message: 'step 1' });
    expect(result.structured).toEqual({ steps: 4 });
  });

  it('streams MCP progress followed by done', async () => {
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('fx:progress', { steps: 2 })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['progress', 'progress', 'done']);
  });

  it('cancels mid-call: the caller gets cancelled and the server sees the cancellation', async () => {
    const controller = new AbortController();
    const { pending, started } = startSlow(runner, 'stdio-abort', controller.signal);
    await started;
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(error.toolId).toBe('fx:slow');
    expect(await serverSawCancel(runner, 'stdio-abort')).toEqual({ cancelled: true });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('times out per call and tells the server to stop', async () => {
    const timed = createRunner({
      index,
      mcp: createMcpExecutor({ clients: { fx: connection.client }, timeout: 150 }),
    });
    const error = await rejection(timed.run('fx:slow', { ms: 60_000, label: 'stdio-timeout' }));
    expect(error.code).toBe('timeout');
    expect(error.op).toBe('execute');
    expect(await serverSawCancel(runner, 'stdio-timeout')).toEqual({ cancelled: true });
  });

  it('stops at maxTotalTimeout even while the server reports progress', async () => {
    const timed = createRunner({
      index,
      mcp: createMcpExecutor({
        clients: { fx: connection.client },
        timeout: 10_000,
        maxTotalTimeout: 200,
        resetTimeoutOnProgress: true,
      }),
    });
    const events: number[] = [];
    const error = await rejection(
      timed.run(
        'fx:slow',
        { ms: 60_000, label: 'stdio-max-total' },
        { onProgress: (e) => events.push(e.progress) },
      ),
    );
    expect(error.code).toBe('timeout');
    expect(events).toEqual([0]);
    expect(await serverSawCancel(runner, 'stdio-max-total')).toEqual({ cancelled: true });
  });

  it('resets the per-request timeout on progress', async () => {
    const options = { clients: { fx: connection.client }, timeout: 400 };
    const resetting = createRunner({ index, mcp: createMcpExecutor(options) });
    const strict = createRunner({
      index,
      mcp: createMcpExecutor({ ...options, resetTimeoutOnProgress: false }),
    });
    // Five steps 150 ms apart: longer than the timeout in all, shorter than it between steps.
    const args = { steps: 5, delayMs: 150 };
    const events: number[] = [];
    const result = await resetting.run('fx:progress', args, {
      onProgress: (e) => events.push(e.progress),
    });
    expect(result.structured).toEqual({ steps: 5 });
    expect(events).toEqual([1, 2, 3, 4, 5]);
    const error = await rejection(strict.run('fx:progress', args, { onProgress: () => undefined }));
    expect(error.code).toBe('timeout');
  });

  it('keeps concurrent calls apart', async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => runner.run('fx:add', { a: i, b: 1000 })),
    );
    expect(results.map((r) => r.structured)).toEqual(
      Array.from({ length: 25 }, (_, i) => ({ sum: i + 1000 })),
    );
  });

  it('leaves no listener on a long-lived caller signal after many calls, and it still cancels', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 200; i++) {
      await runner.run('fx:add', { a: i, b: 1 }, { signal: controller.signal });
    }
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    // A few requests hold the caller's signal itself (the SDK's listener on it each), the rest
    // share one listener on it: never the eleven at which Node 20 warns of a leak.
    let most = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = (...args: Parameters<typeof add>) => {
      add(...args);
      most = Math.max(most, getEventListeners(controller.signal, 'abort').length);
    };
    const concurrent = Array.from({ length: 20 }, (_, i) =>
      runner.run('fx:add', { a: i, b: 2 }, { signal: controller.signal }),
    );
    await Promise.all(concurrent);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(5);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const { pending, started } = startSlow(runner, 'long-lived', controller.signal);
    await started;
    controller.abort();
    expect((await rejection(pending)).code).toBe('cancelled');
    expect(await serverSawCancel(runner, 'long-lived')).toEqual({ cancelled: true });
  });

  it('runs a chain that mixes local and MCP steps', async () => {
    const chain = await runner.runChain([
      { toolId: 'local:pair' },
      { toolId: 'fx:json-text', usePrevious: true },
      { toolId: 'local:sum', usePrevious: true },
    ]);
    expect(chain.steps.map((step) => step.backend.kind)).toEqual(['local', 'mcp', 'local']);
    expect(chain.steps[1]?.structured).toEqual({ a: 2, b: 3 });
    expect(chain.result.structured).toBe(5);
  });
});

describe('the MCP executor when the server dies mid-call', () => {
  it('rejects promptly with execution, leaving no listener or process behind', async () => {
    const connection = await connectStdio();
    try {
      const index = createIndex();
      await indexServer(index, 'fx', connection.client);
      const runner = createRunner({
        index,
        mcp: createMcpExecutor({ clients: { fx: connection.client } }),
      });
      const controller = new AbortController();
      const { pending, started } = startSlow(runner, 'killed', controller.signal);
      await started;
      process.kill(connection.pid, 'SIGKILL');
      const error = await rejection(pending);
      expect(error.code).toBe('execution');
      await connection.exited;
      expect(() => process.kill(connection.pid, 0)).toThrow();
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    } finally {
      await connection.close();
    }
  });
});

describe('the MCP executor against the fixture server over Streamable HTTP', () => {
  let fixture: HttpFixture;
  let connection: ConnectedClient;
  let runner: Runner;

  beforeAll(async () => {
    fixture = await startHttpFixture();
    connection = await connectHttp(fixture.url);
    const index = createIndex();
    await indexServer(index, 'fx', connection.client);
    runner = createRunner({
      index,
      mcp: createMcpExecutor({ clients: { fx: connection.client } }),
    });
  });

  afterAll(async () => {
    await connection.close();
    await fixture.close();
  });

  it('returns structured results over HTTP', async () => {
    expect((await runner.run('fx:add', { a: 1, b: 2 })).structured).toEqual({ sum: 3 });
  });

  it('refuses arguments with no JSON text over HTTP as invalid_argument', async () => {
    await expectNotJsonRefused(runner);
  });

  it('relays progress over HTTP', async () => {
    const events: number[] = [];
    await runner.run('fx:progress', { steps: 3 }, { onProgress: (e) => events.push(e.progress) });
    expect(events).toEqual([1, 2, 3]);
  });

  it('cancels mid-call over HTTP and the server sees it', async () => {
    const controller = new AbortController();
    const { pending, started } = startSlow(runner, 'http-abort', controller.signal);
    await started;
    controller.abort();
    expect((await rejection(pending)).code).toBe('cancelled');
    expect(await serverSawCancel(runner, 'http-abort')).toEqual({ cancelled: true });
  });
});

describe('the MCP executor against @modelcontextprotocol/server-everything over stdio', () => {
  let connection: StdioConnection;
  let runner: Runner;

  beforeAll(async () => {
    connection = await connectStdio(everythingCommand());
    const index = createIndex();
    await indexServer(index, 'everything', connection.client);
    runner = createRunner({
      index,
      mcp: createMcpExecutor({ clients: { everything: connection.client } }),
    });
  });

  afterAll(async () => {
    await connection.close();
  });

  it('echoes a message as text', async () => {
    const result = await runner.run('everything:echo', { message: 'hi there' });
    expect(result.structured).toBe('Echo: hi there');
  });

  it('adds two numbers', async () => {
    const result = await runner.run('everything:get-sum', { a: 19, b: 23 });
    expect(result.structured).toContain('42');
  });

  it('returns structured content validated against the output schema', async () => {
    const result = await runner.run('everything:get-structured-content', { location: 'Chicago' });
    expect(result.structured).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
  });

  it('rejects invalid arguments before calling the server', async () => {
    const error = await rejection(runner.run('everything:get-sum', { a: 1 }));
    expect(error.code).toBe('validation');
  });

  it('relays the long-running operation’s progress', async () => {
    const events: ProgressEvent[] = [];
    await runner.run(
      'everything:trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (event) => events.push(event) },
    );
    expect(events.map((e) => [e.progress, e.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('cancels the long-running operation mid-call', async () => {
    const controller = new AbortController();
    const pending = runner.run(
      'everything:trigger-long-running-operation',
      { duration: 30, steps: 30 },
      {
        signal: controller.signal,
        onProgress: () => {
          controller.abort();
        },
      },
    );
    expect((await rejection(pending)).code).toBe('cancelled');
  });
});

describe('createMcpExecutor', () => {
  let connection: ConnectedClient;
  beforeAll(async () => {
    connection = await connectInMemory();
  });
  afterAll(async () => {
    await connection.close();
  });

  it('calls the tool by its MCP name on a client from a function', async () => {
    const executor = createMcpExecutor({
      clients: (server) => Promise.resolve(server === 'fx' ? connection.client : connection.client),
    });
    const result = await executor.callTool('fx', 'add', { a: 1, b: 1 });
    expect(result.structuredContent).toEqual({ sum: 2 });
  });

  it('rejects with execution for an unknown server, inherited names included', async () => {
    const executor = createMcpExecutor({ clients: { fx: connection.client } });
    for (const server of ['nope', 'toString', '__proto__', 'constructor']) {
      const error = await rejection(executor.callTool(server, 'add', { a: 1, b: 1 }));
      expect(error.code).toBe('execution');
    }
  });

  it('rejects with cancelled without sending anything when the signal is already aborted', async () => {
    const executor = createMcpExecutor({ clients: { fx: connection.client } });
    const error = await rejection(
      executor.callTool('fx', 'add', { a: 1, b: 1 }, { signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('cancelled');
  });

  it('sends meta as the request’s _meta', async () => {
    const executor = createMcpExecutor({ clients: { fx: connection.client } });
    const result = await executor.callTool('fx', 'echo', { text: 'x' }, { meta: { traceId: 't' } });
    expect(result.content).toEqual([{ type: 'text', text: 'x' }]);
  });
});
