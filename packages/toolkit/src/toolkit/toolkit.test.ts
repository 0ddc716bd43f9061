import { getEventListeners } from 'node:events';
import { fixtureCommand, isAlive, recordEvents } from '@toolplane/fixtures';
import { createValidator, ToolError, type SchemaValidator } from '@toolplane/toolmodel';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createOutputTool } from '../output-tool.js';
import type { Prompt } from '../prompts/prompts.js';
import { textResource } from '../resources/resources.js';
import { getSession } from '../session.js';
import { createMemoryStore } from '../store.js';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type Toolkit, type ToolkitEvent, type ToolkitOptions } from './toolkit.js';

const open: Toolkit[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolkit) => toolkit.close()));
});

/** A toolkit that records its events, with a way to wait for one. */
function makeToolkit(options: ToolkitOptions = {}) {
  const log = recordEvents<ToolkitEvent>();
  const toolkit = createToolkit({
    ...options,
    delegate: {
      call: (prompt, input, callOptions) =>
        options.delegate === undefined
          ? Promise.reject(new Error('no model in this test'))
          : options.delegate.call(prompt, input, callOptions),
      onEvent: log.push,
    },
  });
  open.push(toolkit);
  const waitFor = (match: (event: ToolkitEvent) => boolean, from = 0) =>
    log.waitFor(match, { from });
  return { toolkit, events: log.events, waitFor };
}

const add = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number().default(0) }),
  output: z.object({ sum: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});

const greet: Prompt = {
  name: 'greet',
  description: 'Greets someone.',
  input: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  template: 'Say hello to {{ who }}.',
};

describe('builtins', () => {
  it('runs a zod-defined tool with typed, defaulted input and wraps its answer as JSON', async () => {
    const { toolkit } = makeToolkit({ tools: [add] });
    const answer = await toolkit.call('add', { a: 2 });
    expect(answer?.mimeType).toBe('application/json');
    expect(JSON.parse(answer?.text ?? '')).toEqual({ sum: 2 });
  });

  it('publishes the zod schema as JSON Schema', () => {
    expect(add.tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number', default: 0 } },
      required: ['a'],
    });
  });

  it('rejects bad arguments with validation, naming the argument', async () => {
    const { toolkit } = makeToolkit({ tools: [add] });
    const error = await toolkit.call('add', { a: 'two' }).catch((e: unknown) => e);
    expect(ToolError.isInstance(error) && error.code).toBe('validation');
    expect((error as ToolError).errors?.[0]?.path).toBe('/a');
  });

  it('wraps strings as text, bytes as data and undefined as nothing', async () => {
    const { toolkit } = makeToolkit({
      tools: [
        defineTool({
          name: 'say',
          description: 'Text.',
          input: { type: 'object' },
          run: () => 'hi',
        }),
        defineTool({
          name: 'png',
          description: 'Bytes.',
          input: { type: 'object' },
          run: () => Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
        }),
        defineTool({
          name: 'nothing',
          description: 'Nothing.',
          input: { type: 'object' },
          run: () => undefined,
        }),
      ],
    });
    expect((await toolkit.call('say'))?.text).toBe('hi');
    expect((await toolkit.call('png'))?.mimeType).toBe('image/png');
    expect(await toolkit.call('nothing')).toBeUndefined();
  });

  it('upserts resources by URI and removes builtins by name or URI', async () => {
    const { toolkit, events } = makeToolkit({ tools: [add], prompts: [greet] });
    toolkit.addResource(textResource('notes', 'v1', { uri: 'memo://notes' }));
    toolkit.addResource(textResource('notes', 'v2', { uri: 'memo://notes' }));
    expect((await toolkit.list({ type: 'resource' })).count).toBe(1);
    expect((await toolkit.readResource('memo://notes')).text).toBe('v2');
    expect(toolkit.removeBuiltin('memo://notes')).toBe('resource');
    expect(toolkit.removeBuiltin('add')).toBe('tool');
    expect(toolkit.index.hasTool('builtin:add')).toBe(false);
    expect(await rejectionCodeOf(toolkit.lookup('add'))).toBe('not_found');
    expect(events.map((e) => `${e.type}:${e.namespace}`)).toContain('tool_list_changed:builtin');
  });

  it('removes one builtin at a time, the tool before a prompt of the same name', async () => {
    const { toolkit } = makeToolkit({ tools: [add], prompts: [{ ...greet, name: 'add' }] });
    expect(toolkit.removeBuiltin('add')).toBe('tool');
    expect((await toolkit.lookup('add')).type).toBe('prompt');
    expect(toolkit.removeBuiltin('add')).toBe('prompt');
    expect(() => toolkit.removeBuiltin('add')).toThrow(
      expect.objectContaining({ code: 'not_found', message: expect.stringContaining('"add"') }),
    );
  });

  it('reports progress through the session and the caller', async () => {
    const { toolkit } = makeToolkit({
      tools: [
        defineTool({
          name: 'steps',
          description: 'Reports progress.',
          input: { type: 'object' },
          run: (_input, context) => {
            context.progress({ progress: 1, total: 2 });
            getSession().progress(2, 2, 'done');
            return 'ok';
          },
        }),
      ],
    });
    const seen: unknown[] = [];
    await toolkit.call('steps', {}, { onProgress: (event) => seen.push(event) });
    // The runner's start, then the tool's own reports (and no coarse end on top of them).
    expect(seen).toEqual([
      { progress: 0 },
      { progress: 1, total: 2 },
      { progress: 2, total: 2, message: 'done' },
    ]);
    expect(() => {
      getSession().progress(1);
    }).not.toThrow();
  });

  it('validates calls with the validator it is given', async () => {
    const base = createValidator();
    const checked: string[] = [];
    const validator: SchemaValidator = {
      ...base,
      validateInput: (tool, args) => {
        checked.push(`in:${tool.name}`);
        return base.validateInput(tool, args);
      },
      validateOutput: (tool, value) => {
        checked.push(`out:${tool.name}`);
        return base.validateOutput(tool, value);
      },
    };
    const { toolkit } = makeToolkit({ tools: [add], validator });
    expect((await toolkit.callTool('builtin:add', { a: 1, b: 2 })).structured).toEqual({ sum: 3 });
    expect(await rejectionCodeOf(toolkit.callTool('builtin:add', { a: 'one' }))).toBe('validation');
    expect(checked).toEqual(['in:add', 'out:add', 'in:add']);
  });

  it('gives the code inside a call the session its caller passed', async () => {
    const { toolkit } = makeToolkit({
      tools: [
        defineTool({
          name: 'whoami',
          description: 'Says who called.',
          input: { type: 'object' },
          run: () => {
            const { id, clientInfo, meta } = getSession();
            return { id, client: clientInfo?.name, meta };
          },
        }),
      ],
    });
    const result = await toolkit.callTool(
      'builtin:whoami',
      {},
      { session: { id: 's-1', clientInfo: { name: 'inspector', version: '1' } }, meta: { m: 1 } },
    );
    expect(result.structured).toEqual({ id: 's-1', client: 'inspector', meta: { m: 1 } });
    // Outside the call the caller's session is gone.
    expect(getSession().id).toBeUndefined();
  });

  it('stops prompt → tool → prompt recursion at maxCallDepth', async () => {
    const self: { toolkit?: Toolkit } = {};
    let calls = 0;
    const made = makeToolkit({
      maxCallDepth: 4,
      tools: [
        defineTool({
          name: 'recurse',
          description: 'Calls the prompt that calls it.',
          input: { type: 'object' },
          run: () => self.toolkit?.call('loop'),
        }),
      ],
      prompts: [{ name: 'loop', template: 'again' }],
      delegate: {
        call: async () => {
          calls++;
          return self.toolkit?.call('recurse');
        },
      },
    });
    self.toolkit = made.toolkit;
    const error = await made.toolkit.call('loop').catch((e: unknown) => e);
    // The caller gets the depth error itself, through every tool and prompt in between.
    expect(error).toMatchObject({ code: 'call_depth_exceeded', toolId: 'builtin:loop' });
    expect((error as Error).message).toContain('limit 4');
    expect(calls).toBe(2);
  });

  it('answers submit_output with the validated arguments', async () => {
    const { toolkit } = makeToolkit({
      tools: [createOutputTool(z.object({ verdict: z.enum(['yes', 'no']) }))],
    });
    expect(
      JSON.parse((await toolkit.call('submit_output', { verdict: 'yes' }))?.text ?? ''),
    ).toEqual({ verdict: 'yes' });
    expect(await rejectionCodeOf(toolkit.call('submit_output', { verdict: 'maybe' }))).toBe(
      'validation',
    );
  });
});

describe('prompts', () => {
  it('runs a prompt through the delegate with the resources given', async () => {
    const { toolkit } = makeToolkit({
      prompts: [greet],
      delegate: {
        call: async (prompt, input, { resources }) => {
          const rendered = await prompt.render(input);
          return `${rendered.text} (${resources.length} resources)`;
        },
      },
    });
    const answer = await toolkit.call(
      'greet',
      { who: 'Ada' },
      { resources: [textResource('x', 'y')] },
    );
    expect(answer?.text).toBe('Say hello to Ada. (1 resources)');
  });

  it('fails with no_delegate when there is no delegate', async () => {
    const toolkit = createToolkit({ prompts: [greet] });
    open.push(toolkit);
    expect(await rejectionCodeOf(toolkit.call('greet', { who: 'Ada' }))).toBe('no_delegate');
    expect((await toolkit.getPrompt('greet', { who: 'Ada' })).text).toBe('Say hello to Ada.');
  });
});

describe('the user namespace', () => {
  it('shows a store change in the very next list and lookup, and announces it', async () => {
    const store = createMemoryStore();
    const { toolkit, waitFor } = makeToolkit({ store });
    expect((await toolkit.list({ namespace: 'user' })).count).toBe(0);
    await store.putPrompt({ name: 'summarise', template: 'Summarise {{ text }}' });
    await waitFor((e) => e.type === 'prompt_list_changed' && e.namespace === 'user');
    expect((await toolkit.list({ namespace: 'user' })).prompts.map((p) => p.name)).toEqual([
      'summarise',
    ]);
    expect((await toolkit.lookup('user:summarise')).type).toBe('prompt');
    await store.putResource(textResource('todo', '- ship', { uri: 'memo://todo' }));
    expect((await toolkit.readResource('memo://todo#user')).text).toBe('- ship');
  });

  it('never serves a tool, not even one put in the index under it', async () => {
    const store = createMemoryStore();
    await store.putPrompt({ name: 'summarise', template: 'Summarise {{ text }}' });
    const { toolkit } = makeToolkit({ store });
    toolkit.index.registerMcpTools('user', [{ name: 'sneaky', inputSchema: { type: 'object' } }], {
      namespace: 'user',
    });
    expect((await toolkit.list({ type: 'tool' })).tools).toEqual([]);
    expect((await toolkit.list({ namespace: 'user' })).tools).toEqual([]);
    expect(await rejectionCodeOf(toolkit.lookup('sneaky'))).toBe('not_found');
    for (const id of ['user:sneaky', 'user:summarise']) {
      const error = await toolkit.callTool(id).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'not_found', toolId: id });
      expect((error as Error).message).toContain('never tools');
    }
    expect(() => toolkit.addConnector('http://127.0.0.1:9/mcp', { namespace: 'user' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });
});

describe('connectors', () => {
  it('cancels a wait for ready with a typed error, and leaves no listener on the signal', async () => {
    const { toolkit } = makeToolkit();
    // A server that starts and never answers the handshake: its connector stays connecting.
    toolkit.addConnector(
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { namespace: 'mute' },
    );
    const run = toolkit.run();
    expect(await rejectionCodeOf(toolkit.ready({ signal: AbortSignal.abort() }))).toBe('cancelled');
    const waiting = new AbortController();
    const wait = toolkit.ready({ signal: waiting.signal });
    waiting.abort();
    expect(await rejectionCodeOf(wait)).toBe('cancelled');
    expect(getEventListeners(waiting.signal, 'abort')).toHaveLength(0);
    await toolkit.close();
    await run;

    const { toolkit: quick } = makeToolkit();
    quick.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(quick);
    const longLived = new AbortController();
    for (let i = 0; i < 3; i++) await quick.ready({ signal: longLived.signal });
    expect(getEventListeners(longLived.signal, 'abort')).toHaveLength(0);
    await stop();
  });

  it('resolves scoped names, bare names by registration order, uri#ns and bare URIs', async () => {
    const { toolkit } = makeToolkit({ tools: [add] });
    expect(toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'first' })).toBe('first');
    expect(toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'second' })).toBe('second');
    const { stop } = await runToolkit(toolkit);
    expect(await toolkit.lookup('first:echo')).toMatchObject({ type: 'tool', id: 'first:echo' });
    expect(await toolkit.lookup('second.echo')).toMatchObject({ type: 'tool', id: 'second:echo' });
    // Bare names: builtins first, then connectors in the order they were added.
    expect(await toolkit.lookup('add')).toMatchObject({ id: 'builtin:add' });
    expect(await toolkit.lookup('echo')).toMatchObject({ type: 'tool', id: 'first:echo' });
    expect(await toolkit.lookup('fixture://readme#second')).toMatchObject({
      type: 'resource',
      namespace: 'second',
    });
    expect(await toolkit.lookup('fixture://readme')).toMatchObject({
      type: 'resource',
      namespace: 'first',
    });
    expect(await rejectionCodeOf(toolkit.lookup('third:echo'))).toBe('not_found');
    expect((await toolkit.call('second:echo', { text: 'hello' }))?.text).toBe('hello');
    await stop();
  });

  it('infers and de-duplicates namespaces, and refuses reserved or taken ones', () => {
    const { toolkit } = makeToolkit();
    const source = { command: 'node', args: ['servers/weather/index.js'] };
    expect(toolkit.addConnector(source)).toBe('weather');
    expect(toolkit.addConnector(source)).toBe('weather-2');
    expect(() => toolkit.addConnector(source, { namespace: 'weather' })).toThrow(
      expect.objectContaining({ code: 'conflict' }) as Error,
    );
    expect(() => toolkit.addConnector(source, { namespace: 'user' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }) as Error,
    );
    expect(toolkit.addConnector({ command: 'builtin' })).toBe('builtin-2');
  });

  it('lists what is up and reports a connector that is down instead of failing', async () => {
    const { toolkit } = makeToolkit({
      tools: [add],
      connectorDefaults: { backoff: { initialDelayMs: 60_000 } },
    });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'up' });
    toolkit.addConnector({ command: 'toolplane-no-such-server' }, { namespace: 'down' });
    const { stop } = await runToolkit(toolkit);
    const all = await toolkit.list();
    expect(all.errors.map((e) => e.namespace)).toEqual(['down']);
    expect(all.tools.some((t) => t.namespace === 'up')).toBe(true);
    expect(all.tools.some((t) => t.namespace === 'down')).toBe(false);
    expect(toolkit.connectors().map((c) => `${c.namespace}:${c.state}`)).toEqual([
      'up:connected',
      'down:failed',
    ]);
    expect(await rejectionCodeOf(toolkit.lookup('down:echo'))).toBe('not_found');
    await stop();
  });

  it('follows a list change pushed by the server', async () => {
    const { toolkit, events, waitFor } = makeToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    const mark = events.length;
    await toolkit.call('fx:define-tool', { name: 'late' });
    await waitFor((e) => e.type === 'tool_list_changed' && e.namespace === 'fx', mark);
    expect(toolkit.index.hasTool('fx:late')).toBe(true);
    expect((await toolkit.call('late', { text: 'on time' }))?.text).toBe('on time');
    await stop();
  });

  it('survives an upstream killed while running: fails the call in flight, drops and restores its tools', async () => {
    const { toolkit, events, waitFor } = makeToolkit({
      connectorDefaults: { backoff: { initialDelayMs: 20, maxDelayMs: 100 } },
    });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    const mark = events.length;
    const inFlight = toolkit.call('fx:slow', { ms: 60_000, label: 'killed' });
    const child = childOf(toolkit, 'fx');
    process.kill(child, 'SIGKILL');
    await expect(inFlight).rejects.toSatisfy((e) => ToolError.isInstance(e));
    await waitFor((e) => e.type === 'state_change' && e.state === 'disconnected', mark);
    await waitFor((e) => e.type === 'state_change' && e.state === 'connected', mark);
    expect(toolkit.index.hasTool('fx:echo')).toBe(true);
    expect((await toolkit.call('fx:echo', { text: 'back' }))?.text).toBe('back');
    await stop();
  });

  it('stops every child when run() ends', async () => {
    const { toolkit } = makeToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    const child = childOf(toolkit, 'fx');
    await stop();
    expect(isAlive(child)).toBe(false);
    expect(toolkit.connectors()[0]?.state).toBe('disconnected');
  });
});

// Tests that only read (look up, list, call tools that change nothing) share one running toolkit
// in front of one fixture child, with a builtin and a middleware that notes each caller.
describe('connectors, one running toolkit shared by tests that only read', () => {
  const seen: unknown[] = [];
  let toolkit: Toolkit;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    toolkit = createToolkit({
      tools: [add],
      middleware: [
        (next) => (call) => {
          seen.push(getSession().id);
          return next(call);
        },
      ],
    });
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    ({ stop } = await runToolkit(toolkit));
  });
  afterAll(async () => {
    await stop();
  });

  it('lets a tool win over a prompt of the same name, and renders the remote prompt', async () => {
    expect((await toolkit.lookup('fx:echo')).type).toBe('tool');
    const prompt = (await toolkit.list({ type: 'prompt', namespace: 'fx' })).prompts[0];
    expect(prompt?.name).toBe('echo');
    expect((await prompt?.prompt.render({ text: 'hi' }))?.text).toBe('Repeat after me: hi');
    // Without the argument it requires: refused here, typed, before the server is asked.
    await expect(prompt?.prompt.render({})).rejects.toMatchObject({ code: 'validation' });
  });

  it('gives middleware the caller’s session on calls to MCP tools', async () => {
    seen.length = 0;
    const result = await toolkit.callTool('fx:echo', { text: 'hi' }, { session: { id: 's-2' } });
    expect(result.structured).toBe('hi');
    expect(seen).toEqual(['s-2']);
  });

  it('pages with count before paging, offset with or without a limit, and cursors', async () => {
    const all = await toolkit.list();
    const items = [...all.tools, ...all.prompts, ...all.resources];
    expect(all.count).toBe(items.length);
    const skipped = await toolkit.list({ offset: 2 });
    expect(skipped.count).toBe(all.count);
    expect(skipped.tools[0]?.id).toBe(all.tools[2]?.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await toolkit.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.tools.length + page.prompts.length + page.resources.length).toBeLessThanOrEqual(
        3,
      );
      seen.push(
        ...[...page.tools, ...page.prompts, ...page.resources].map(
          (i) => `${i.type}:${i.namespace}:${i.name}`,
        ),
      );
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(items.map((i) => `${i.type}:${i.namespace}:${i.name}`));
    expect(await rejectionCodeOf(toolkit.list({ limit: 0 }))).toBe('invalid_argument');
    expect(await rejectionCodeOf(toolkit.list({ cursor: 'nonsense' }))).toBe('invalid_cursor');
  });

  it('relays progress and cancels through call', async () => {
    const progress: number[] = [];
    await toolkit.call(
      'fx:progress',
      { steps: 3 },
      { onProgress: (e) => progress.push(e.progress) },
    );
    expect(progress).toEqual([1, 2, 3]);
    // Cancel once the server has started the work (it reports progress 0 at once).
    const controller = new AbortController();
    const call = toolkit.call(
      'fx:slow',
      { ms: 60_000, label: 'toolkit-cancel' },
      {
        signal: controller.signal,
        onProgress: () => {
          controller.abort();
        },
      },
    );
    expect(await rejectionCodeOf(call)).toBe('cancelled');
    const seen = await toolkit.call('fx:wait-cancelled', { label: 'toolkit-cancel' });
    expect(JSON.parse(seen?.text ?? '')).toEqual({ cancelled: true });
  });
});

/** The PID of a stdio connector's child. */
function childOf(toolkit: Toolkit, namespace: string): number {
  const pid = toolkit.connectors().find((c) => c.namespace === namespace)?.pid;
  if (pid === undefined) throw new Error(`connector "${namespace}" has no child process`);
  return pid;
}
