/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era features (logging, sampling, roots,
   initialize-scoped client identity), bridged for as long as clients and servers speak them */
import {
  Client,
  InMemoryTransport,
  ProtocolError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientOptions,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import {
  createToolkit,
  defineResourceTemplate,
  defineTool,
  embeddedResource,
  getSession,
  imageContent,
  liveResource,
  resourceLink,
  textContent,
  textResource,
  ToolError,
  toolResult,
  type Prompt,
  type Toolkit,
} from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { cancelMidCall } from './testing/slow-calls.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { EXPOSED_NAME_PATTERN } from './names.js';
import type { GatewayOptions } from './options.js';
import { createMcpServer, ERROR_META_KEY } from './server.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});

const greet: Prompt = {
  name: 'greet',
  description: 'Greets someone.',
  input: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  template: 'Say hello to {{ who }}.',
};

async function startToolkit(): Promise<RunningToolkit> {
  const toolkit = createToolkit({
    tools: [add],
    prompts: [greet],
    resources: [textResource('notes', 'remember', { uri: 'memo://notes' })],
  });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  return runToolkit(toolkit);
}

async function connect(toolkit: Toolkit, options: GatewayOptions = {}): Promise<Client> {
  const server = createMcpServer(toolkit, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  return client;
}

function structured(result: unknown): unknown {
  return (result as CallToolResult).structuredContent;
}

/** Resolves with the first notification `register` hears, or rejects after `ms`. */
function nextNotification<T>(
  register: (resolve: (value: T) => void) => void,
  ms = 10_000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error('no notification in time'));
    }, ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

describe('createMcpServer', () => {
  let running: RunningToolkit;
  let client: Client;
  beforeAll(async () => {
    running = await startToolkit();
    client = await connect(running.toolkit);
  });
  afterAll(async () => {
    await client.close();
    await running.stop();
  });

  it('lists every tool as namespace__name, each matching the exposed-name pattern', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('builtin__add');
    expect(names).toContain('fx__add');
    expect(names).toContain('fx__wait-cancelled');
    for (const name of names) expect(name).toMatch(EXPOSED_NAME_PATTERN);
    const fxAdd = tools.find((t) => t.name === 'fx__add');
    expect(fxAdd?.outputSchema).toBeDefined();
    expect(fxAdd).not.toHaveProperty('namespace');
  });

  it('pages every list with cursors that cover each item exactly once', async () => {
    const paged = await connect(running.toolkit, { pageSize: 3 });
    try {
      const all = (await client.listTools()).tools.map((t) => t.name);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        // Without a cursor the SDK v2 client fetches every page: the first one is asked for raw.
        const page =
          cursor === undefined
            ? await paged.request({ method: 'tools/list', params: {} })
            : await paged.listTools({ cursor });
        expect(page.tools.length).toBeLessThanOrEqual(3);
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(seen).toEqual(all);
      await expect(paged.listTools({ cursor: '!!' })).rejects.toBeInstanceOf(ProtocolError);
    } finally {
      await paged.close();
    }
  });

  it('calls an upstream tool and passes its structured result through', async () => {
    const result = await client.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } });
    expect(structured(result)).toEqual({ sum: 5 });
  });

  it('calls a builtin tool and returns its answer as structured content', async () => {
    const result = await client.callTool({ name: 'builtin__add', arguments: { a: 1, b: 1 } });
    expect(structured(result)).toEqual({ sum: 2 });
  });

  it('returns a failing upstream tool’s error result as sent, the structured error in _meta', async () => {
    const result = await client.callTool({
      name: 'fx__fail',
      arguments: { message: 'boom' },
    });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'boom' }]);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'execution', toolId: 'fx:fail' });
  });

  it('keeps structuredContent out of an error of a tool with an output schema', async () => {
    const result = await client.callTool({
      name: 'fx__add',
      arguments: { a: 'x', b: 1 },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ code: 'validation', toolId: 'fx:add' });
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    await expect(client.callTool({ name: 'nope__nothing', arguments: {} })).rejects.toBeInstanceOf(
      ProtocolError,
    );
  });

  it('lists and renders prompts under exposed names', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['builtin__greet', 'fx__echo']),
    );
    const local = await client.getPrompt({ name: 'builtin__greet', arguments: { who: 'Ada' } });
    expect(JSON.stringify(local.messages)).toContain('Say hello to Ada.');
    const remote = await client.getPrompt({ name: 'fx__echo', arguments: { text: 'hi' } });
    expect(JSON.stringify(remote.messages)).toContain('Repeat after me: hi');
    await expect(client.getPrompt({ name: 'missing' })).rejects.toBeInstanceOf(ProtocolError);
  });

  it('lists and reads resources from builtins and upstreams', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['memo://notes', 'fixture://readme']));
    const readme = await client.readResource({ uri: 'fixture://readme' });
    expect(readme.contents[0]).toMatchObject({ uri: 'fixture://readme', text: '# Fixture\n' });
    const notes = await client.readResource({ uri: 'memo://notes' });
    expect(notes.contents[0]).toMatchObject({ text: 'remember' });
    await expect(client.readResource({ uri: 'memo://none' })).rejects.toBeInstanceOf(ProtocolError);
    await client.subscribeResource({ uri: 'fixture://readme' });
    await client.unsubscribeResource({ uri: 'fixture://readme' });
  });

  it('reads a live resource anew on every resources/read', async () => {
    let reads = 0;
    const { toolkit } = running;
    toolkit.addResource(liveResource('clock', () => `tick ${++reads}`, { uri: 'memo://clock' }));
    const first = await client.readResource({ uri: 'memo://clock' });
    const second = await client.readResource({ uri: 'memo://clock' });
    expect([first.contents[0], second.contents[0]]).toEqual([
      { uri: 'memo://clock', mimeType: 'text/plain', text: 'tick 1' },
      { uri: 'memo://clock', mimeType: 'text/plain', text: 'tick 2' },
    ]);
    toolkit.removeBuiltin('memo://clock');
  });

  it('answers templates, completion and ping', async () => {
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'builtin__greet' },
      argument: { name: 'who', value: 'A' },
    });
    expect(completion.completion.values).toEqual([]);
    await expect(client.ping()).resolves.toBeDefined();
  });

  it('relays upstream progress to the client token', async () => {
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'fx__progress', arguments: { steps: 3 } },
      {
        onprogress: (event) => seen.push(event.progress),
      },
    );
    expect(seen).toEqual([1, 2, 3]);
    expect(structured(result)).toEqual({ steps: 3 });
  });

  it('passes a client cancel on to the upstream request', async () => {
    expect(await cancelMidCall(client, 'mem-cancel')).toEqual({ cancelled: true });
  });

  it('relays upstream log messages to the client', async () => {
    const logged = nextNotification<LoggingMessageNotification['params']>((resolve) => {
      client.setNotificationHandler('notifications/message', (n) => {
        resolve(n.params);
      });
    });
    await client.callTool({
      name: 'fx__log',
      arguments: { message: 'hello log', level: 'warning' },
    });
    expect(await logged).toMatchObject({
      level: 'warning',
      logger: 'fx/fixture',
      data: 'hello log',
    });
  });

  it('sends tools/list_changed when an upstream adds a tool, and lists it', async () => {
    const changed = nextNotification<undefined>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        resolve(undefined);
      });
    });
    await client.callTool({ name: 'fx__define-tool', arguments: { name: 'late' } });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('fx__late');
  });

  it('coalesces a burst of changes into one notification per kind', async () => {
    // A toolkit of its own, so no upstream change from another test can add a notification.
    const quiet = createToolkit();
    const session = await connect(quiet);
    try {
      let count = 0;
      const changed = nextNotification<undefined>((resolve) => {
        session.setNotificationHandler('notifications/tools/list_changed', () => {
          count++;
          resolve(undefined);
        });
      });
      for (let i = 0; i < 5; i++) {
        quiet.addTool(
          defineTool({ name: `burst${i}`, description: 'x', input: z.object({}), run: () => i }),
        );
      }
      await changed;
      // The burst was one change: a second notification would have been queued before the ping.
      await session.ping();
      expect(count).toBe(1);
      expect((await session.listTools()).tools).toHaveLength(5);
    } finally {
      await session.close();
    }
  });

  it('hides filtered tools from lists and calls', async () => {
    const filtered = await connect(running.toolkit, {
      filter: { fx: { deny: ['fail'] }, builtin: { allow: ['nothing'] } },
    });
    try {
      const names = (await filtered.listTools()).tools.map((t) => t.name);
      expect(names).toContain('fx__add');
      expect(names).not.toContain('fx__fail');
      expect(names.some((n) => n.startsWith('builtin__'))).toBe(false);
      await expect(filtered.callTool({ name: 'fx__fail', arguments: {} })).rejects.toBeInstanceOf(
        ProtocolError,
      );
    } finally {
      await filtered.close();
    }
  });

  it('exposes the transparent namespace without a prefix', async () => {
    const transparent = await connect(running.toolkit, { transparent: 'fx' });
    try {
      const names = (await transparent.listTools()).tools.map((t) => t.name);
      expect(names).toContain('echo');
      expect(names).toContain('builtin__add');
      const result = await transparent.callTool({ name: 'add', arguments: { a: 4, b: 4 } });
      expect(structured(result)).toEqual({ sum: 8 });
    } finally {
      await transparent.close();
    }
  });
});

describe('search mode', () => {
  let running: RunningToolkit;
  let client: Client;
  beforeAll(async () => {
    running = await startToolkit();
    client = await connect(running.toolkit, { mode: 'search' });
  });
  afterAll(async () => {
    await client.close();
    await running.stop();
  });

  it('lists only search_tools, describe_tool and call_tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
  });

  it('searches, describes and calls a tool by its ID', async () => {
    const found = structured(
      await client.callTool({ name: 'search_tools', arguments: { query: 'add two numbers' } }),
    ) as { results: { id: string }[] };
    const ids = found.results.map((r) => r.id);
    expect(ids).toContain('fx:add');
    const described = structured(
      await client.callTool({ name: 'describe_tool', arguments: { id: 'fx:add' } }),
    ) as { inputSchema: unknown };
    expect(described.inputSchema).toMatchObject({ type: 'object' });
    const called = await client.callTool({
      name: 'call_tool',
      arguments: { id: 'fx:add', arguments: { a: 20, b: 22 } },
    });
    expect(structured(called)).toEqual({ sum: 42 });
    const missing = await client.callTool({
      name: 'describe_tool',
      arguments: { id: 'fx:nothing' },
    });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: 'not_found' } });
  });
});

/** A promise and the function that resolves it (Node 20 has no Promise.withResolvers). */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe('builtins talking to their caller, over Streamable HTTP', () => {
  const PNG = 'iVBORw0KGgo=';
  const notes = textResource('notes', 'remember', { uri: 'memo://notes' });
  const elicitOutcome: { settle?: (outcome: unknown) => void } = {};
  const toolkit = createToolkit({
    // A prompt delegate sees the same caller as the builtin whose call runs the prompt.
    delegate: {
      call: async (prompt) => {
        const session = getSession();
        await session.log('notice', `running ${prompt.name}`);
        const answer = await session.elicit({
          message: `Run ${prompt.name}?`,
          requestedSchema: { type: 'object', properties: {} },
        });
        return answer.action;
      },
    },
    resources: [notes],
    resourceTemplates: [
      defineResourceTemplate({
        uriTemplate: 'memo://day/{date}',
        name: 'day',
        read: ({ date }) => `notes of ${String(date)}`,
        complete: {
          date: (value) => ['2026-11-23', '2026-11-24'].filter((d) => d.startsWith(value)),
        },
      }),
    ],
    prompts: [
      {
        name: 'trip',
        input: { type: 'object', properties: { city: { enum: ['Paris', 'Parma', 'Oslo'] } } },
        messages: [{ role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } }],
        template: 'Plan a trip to {{ city }}.',
      },
    ],
    tools: [
      defineTool({
        name: 'chart',
        description: 'Answers with every kind of content.',
        input: z.object({}),
        output: z.object({ points: z.number() }),
        run: () =>
          toolResult(
            [
              textContent('a chart'),
              imageContent(PNG, 'image/png'),
              embeddedResource(notes),
              resourceLink(notes),
            ],
            { structured: { points: 3 } },
          ),
      }),
      defineTool({
        name: 'broken',
        description: 'Fails with its own content.',
        input: z.object({}),
        run: () =>
          toolResult([textContent('disk full'), imageContent(PNG, 'image/png')], { isError: true }),
      }),
      defineTool({
        name: 'chatty',
        description: 'Logs at three levels.',
        input: z.object({ tag: z.string() }),
        run: async ({ tag }) => {
          const { log } = getSession();
          await log('info', `${tag} info`);
          await log('warning', `${tag} warning`);
          await log('error', { tag }, 'disk');
          return tag;
        },
      }),
      defineTool({
        name: 'ask',
        description: 'Asks the user for a name.',
        input: z.object({}),
        run: async () => {
          try {
            const answer = await getSession().elicit({
              message: 'Your name?',
              requestedSchema: {
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
              },
            });
            elicitOutcome.settle?.(answer);
            return { action: answer.action, ...answer.content };
          } catch (error) {
            elicitOutcome.settle?.(error);
            // The runner reports what a builtin throws as `execution`; the builtin sees the code.
            if (ToolError.isInstance(error) && error.code !== 'cancelled') {
              return { refused: error.code };
            }
            throw error;
          }
        },
      }),
      defineTool({
        name: 'sample',
        description: "Asks the caller's model.",
        input: z.object({ tools: z.boolean().default(false) }),
        run: async ({ tools }) => {
          try {
            const answer = await getSession().createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
              maxTokens: 10,
              ...(tools ? { tools: [{ name: 't', inputSchema: { type: 'object' } }] } : {}),
            });
            return { model: answer.model };
          } catch (error) {
            if (ToolError.isInstance(error)) return { refused: error.code };
            throw error;
          }
        },
      }),
    ],
  });
  toolkit.addTool(
    defineTool({
      name: 'plan',
      description: 'Runs the trip prompt through the delegate.',
      input: z.object({}),
      run: async () => (await toolkit.call('builtin:trip', { city: 'Oslo' }))?.text,
    }),
  );
  let gateway: HttpGateway;
  const clients: Client[] = [];

  async function open(capabilities: ClientOptions['capabilities'] = {}): Promise<Client> {
    const client = new Client({ name: 'caller', version: '0.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    clients.push(client);
    return client;
  }

  function errorCode(result: unknown): unknown {
    const meta = (result as CallToolResult)._meta?.[ERROR_META_KEY] as
      { code?: unknown } | undefined;
    return meta?.code;
  }

  beforeAll(async () => {
    gateway = await serveHttp(toolkit, { port: 0, transparent: 'builtin' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway.close();
    await toolkit.close();
  });

  it('sends a rich result to the client as the builtin made it', async () => {
    const client = await open();
    expect(await client.callTool({ name: 'chart', arguments: {} })).toEqual({
      content: [
        { type: 'text', text: 'a chart' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'memo://notes', mimeType: 'text/plain', text: 'remember' },
        },
        { type: 'resource_link', uri: 'memo://notes', name: 'notes', mimeType: 'text/plain' },
      ],
      structuredContent: { points: 3 },
    });
  });

  it('sends an isError result with the content the builtin gave', async () => {
    const client = await open();
    const result = await client.callTool({ name: 'broken', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: 'disk full' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    expect(errorCode(result)).toBe('execution');
  });

  it("sends log messages to the calling session only, honouring that session's level", async () => {
    const quiet = await open();
    const loud = await open();
    const heard = new Map<Client, unknown[]>([
      [quiet, []],
      [loud, []],
    ]);
    for (const [client, log] of heard) {
      client.setNotificationHandler('notifications/message', (n) => {
        log.push(n.params);
      });
    }
    await quiet.setLoggingLevel('warning');
    await quiet.callTool({ name: 'chatty', arguments: { tag: 'q' } });
    await loud.callTool({ name: 'chatty', arguments: { tag: 'l' } });
    expect(heard.get(quiet)).toEqual([
      { level: 'warning', data: 'q warning' },
      { level: 'error', data: { tag: 'q' }, logger: 'disk' },
    ]);
    expect(heard.get(loud)).toEqual([
      { level: 'info', data: 'l info' },
      { level: 'warning', data: 'l warning' },
      { level: 'error', data: { tag: 'l' }, logger: 'disk' },
    ]);
  });

  it('elicits from the calling client; no_delegate when it cannot, validation for a bad answer', async () => {
    const able = await open({ elicitation: {} });
    able.setRequestHandler('elicitation/create', (request) => ({
      action: 'accept',
      content: { name: `Ada (${request.params.message})` },
    }));
    const answered = await able.callTool({ name: 'ask', arguments: {} });
    expect(structured(answered)).toEqual({ action: 'accept', name: 'Ada (Your name?)' });
    const unable = await open();
    const refused = await unable.callTool({ name: 'ask', arguments: {} });
    expect(structured(refused)).toEqual({ refused: 'no_delegate' });
    const careless = await open({ elicitation: {} });
    careless.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: {} }));
    const invalid = await careless.callTool({ name: 'ask', arguments: {} });
    expect(structured(invalid)).toEqual({ refused: 'validation' });
  });

  it("samples the calling client's model, and fails with no_delegate when it cannot", async () => {
    const able = await open({ sampling: {} });
    able.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      model: 'caller-model',
      content: { type: 'text', text: 'hi' },
    }));
    const answered = await able.callTool({ name: 'sample', arguments: {} });
    expect(structured(answered)).toEqual({ model: 'caller-model' });
    const withTools = await able.callTool({ name: 'sample', arguments: { tools: true } });
    expect(structured(withTools)).toEqual({ refused: 'no_delegate' });
    const unable = await open();
    const refused = await unable.callTool({ name: 'sample', arguments: {} });
    expect(structured(refused)).toEqual({ refused: 'no_delegate' });
  });

  it('lets a prompt delegate log to and elicit from the caller of the builtin that ran it', async () => {
    const client = await open({ elicitation: {} });
    const logged: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logged.push(n.params);
    });
    client.setRequestHandler('elicitation/create', (request) => ({
      action: request.params.message === 'Run trip?' ? 'decline' : 'cancel',
    }));
    const result = await client.callTool({ name: 'plan', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'decline' }]);
    expect(logged).toEqual([{ level: 'notice', data: 'running trip' }]);
  });

  it('cancels an elicitation in progress when the client cancels the call', async () => {
    const client = await open({ elicitation: {} });
    const asked = deferred<undefined>();
    client.setRequestHandler('elicitation/create', (_, extra) => {
      asked.resolve(undefined);
      return new Promise((_resolve, reject) => {
        extra.mcpReq.signal.addEventListener('abort', () => {
          reject(new Error('cancelled by the server'));
        });
      });
    });
    const outcome = deferred<unknown>();
    elicitOutcome.settle = outcome.resolve;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'ask', arguments: {} },
      {
        signal: controller.signal,
      },
    );
    await asked.promise;
    controller.abort();
    await expect(call).rejects.toThrow();
    const error = await outcome.promise;
    expect(ToolError.isInstance(error) && error.code).toBe('cancelled');
    delete elicitOutcome.settle;
  });

  it('serves builtin templates, completions, prompt images and resource updates', async () => {
    const client = await open();
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'memo://day/{date}', name: 'day' },
    ]);
    const day = await client.readResource({ uri: 'memo://day/2026-11-23' });
    expect(day.contents).toEqual([
      { uri: 'memo://day/2026-11-23', mimeType: 'text/plain', text: 'notes of 2026-11-23' },
    ]);
    const dates = await client.complete({
      ref: { type: 'ref/resource', uri: 'memo://day/{date}' },
      argument: { name: 'date', value: '2026-11-2' },
    });
    expect(dates.completion.values).toEqual(['2026-11-23', '2026-11-24']);
    const cities = await client.complete({
      ref: { type: 'ref/prompt', name: 'trip' },
      argument: { name: 'city', value: 'pa' },
    });
    expect(cities.completion.values).toEqual(['Paris', 'Parma']);
    const trip = await client.getPrompt({ name: 'trip', arguments: { city: 'Oslo' } });
    expect(trip.messages).toEqual([
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Plan a trip to Oslo.' } },
    ]);
    await client.subscribeResource({ uri: 'memo://notes' });
    const updated = nextNotification<string>((resolve) => {
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        resolve(n.params.uri);
      });
    });
    toolkit.addResource(textResource('notes', 'remember more', { uri: 'memo://notes' }));
    expect(await updated).toBe('memo://notes');
  });
});
