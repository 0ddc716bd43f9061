import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { TINY_PNG_BASE64 } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import type { ToolplaneArtifact } from './results.js';
import { ScriptedChatModel, runToolLoop } from './testing/scripted-model.js';
import { PROGRESS_EVENT, type ToolProgress } from './tool.js';
import { toLangChainTools } from './tools.js';

const toolkit = useFixtureToolkit({ everything: true });

function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((message) => ToolMessage.isInstance(message));
}

function artifactOf(message: ToolMessage | undefined): ToolplaneArtifact {
  return message?.artifact as ToolplaneArtifact;
}

/** Records what callbacks hear, in order. */
class Recorder extends BaseCallbackHandler {
  name = 'recorder';
  readonly events: { readonly kind: string; readonly data?: unknown }[] = [];
  constructor(private readonly onEvent?: (kind: string, data: unknown) => void) {
    // Awaited, not queued in LangChain's background queue: a test reads what it recorded as
    // soon as the call returns, and a loaded machine could leave the last events still queued.
    super({ _awaitHandler: true });
  }
  #push(kind: string, data?: unknown): void {
    this.events.push({ kind, data });
    this.onEvent?.(kind, data);
  }
  override handleToolStart(
    ..._args: [unknown, string, string, string?, string[]?, unknown?, string?, string?]
  ): void {
    const [, input, , , , , runName, toolCallId] = _args;
    this.#push('start', { input, runName, toolCallId });
  }
  override handleToolEnd(output: unknown): void {
    this.#push('end', output);
  }
  override handleToolError(error: unknown): void {
    this.#push('error', error);
  }
  override handleToolEvent(chunk: unknown): void {
    this.#push('event', chunk);
  }
  override handleCustomEvent(name: string, data: unknown): void {
    this.#push(`custom:${name}`, data);
  }
}

describe('toLangChainTools in a bindTools + invoke loop', () => {
  it('runs get-sum and get-tiny-image over two turns: text to the model, the image as artifact', async () => {
    const tools = await toLangChainTools(toolkit, { include: { namespaces: ['everything'] } });
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('everything__get-sum');
    expect(names.every((name) => name.startsWith('everything__'))).toBe(true);
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'c1', name: 'everything__get-sum', args: { a: 2, b: 3 } },
          { id: 'c2', name: 'everything__get-tiny-image', args: {} },
        ],
      },
      { text: '2 + 3 = 5, and the image shows the MCP logo.' },
    ]);
    const messages = await runToolLoop(model, tools, 'Add 2 and 3, then show me a tiny image.');
    expect(messages.at(-1)?.content).toBe('2 + 3 = 5, and the image shows the MCP logo.');
    expect(model.turns).toHaveLength(2);

    // The tools reached the provider with their JSON Schemas and descriptions.
    const sum = model.turns[0]?.tools.find((tool) => tool.function.name === 'everything__get-sum');
    expect(sum?.function.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    expect(sum?.function.description?.length).toBeGreaterThan(0);

    // What the model read in its second turn.
    const told = toolMessages(model.turns[1]?.messages ?? []);
    expect(told.map((message) => message.tool_call_id)).toEqual(['c1', 'c2']);
    expect(told[0]).toMatchObject({ status: 'success', content: 'The sum of 2 and 3 is 5.' });
    expect(told[1]?.status).toBe('success');
    expect(told[1]?.content).toContain('[toolplane: image (image/png) in the artifact]');
    expect(told[1]?.content).not.toContain(TINY_PNG_BASE64.slice(0, 40));
    const image = artifactOf(told[1]).content.find((block) => block.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect((image as { data: string }).data.length).toBeGreaterThan(100);
    expect(artifactOf(told[1]).toolId).toBe('everything:get-tiny-image');
  });

  it('gives structured content to the model as JSON and keeps it in the artifact', async () => {
    const tools = await toLangChainTools(toolkit, { include: { ids: ['fx:add'] } });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's', name: 'fx__add', args: { a: 2, b: 40 } }] },
      { text: '42' },
    ]);
    expect(tools[0]?.metadata).toEqual({
      toolplaneId: 'fx:add',
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
    const [message] = toolMessages(await runToolLoop(model, tools, 'add'));
    expect(message?.content).toBe('{"sum":42}');
    expect(artifactOf(message)).toMatchObject({
      toolId: 'fx:add',
      structuredContent: { sum: 42 },
      content: [{ type: 'text', text: '42' }],
    });
  });

  it('sends images to the model as standard content blocks with media: content', async () => {
    const tools = await toLangChainTools(toolkit, {
      include: { ids: ['fx:mixed'] },
      media: 'content',
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'm', name: 'fx__mixed', args: {} }] },
      { text: 'seen' },
    ]);
    const [message] = toolMessages(await runToolLoop(model, tools, 'look'));
    expect(message?.content).toEqual([
      { type: 'text', text: 'a picture' },
      { type: 'image', mimeType: 'image/png', data: TINY_PNG_BASE64 },
      { type: 'text', text: 'resource fixture://note:\na note' },
    ]);
  });

  it('tells the model a failing tool, an isError result and a bad argument as error messages', async () => {
    const tools = await toLangChainTools(toolkit, {
      include: { ids: ['fx:fail', 'fx:add', 'fx:report-error'] },
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'f', name: 'fx__fail', args: { message: 'disk full' } },
          { id: 'v', name: 'fx__add', args: { a: 'one', b: 2 } },
          { id: 'r', name: 'fx__report-error', args: { message: 'quota exceeded' } },
        ],
      },
      { text: 'All failed.' },
    ]);
    const told = toolMessages(await runToolLoop(model, tools, 'go'));
    expect(told.map((message) => message.status)).toEqual(['error', 'error', 'error']);
    expect(told[0]?.content).toContain('disk full');
    expect(told[1]?.content).toMatch(/^validation: /);
    expect(artifactOf(told[1])).toMatchObject({ isError: true, code: 'validation' });
    expect(told[2]?.content).toBe('quota exceeded');
    expect(artifactOf(told[2])).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'quota exceeded' }],
    });
  });

  it('throws failures as ToolErrors with throwOnError, after telling the callbacks', async () => {
    const [fail] = await toLangChainTools(toolkit, {
      include: { ids: ['fx:report-error'] },
      throwOnError: true,
    });
    const recorder = new Recorder();
    const call = { id: 't', name: 'fx__report-error', args: { message: 'no' }, type: 'tool_call' };
    await expect(fail?.invoke(call, { callbacks: [recorder] })).rejects.toMatchObject({
      name: 'ToolError',
      code: 'execution',
    });
    expect(recorder.events.map((event) => event.kind)).toEqual(['start', 'error']);
  });
});

describe('callbacks and cancellation', () => {
  it('tells callbacks the start, each MCP progress report (tool event and custom event) and the end', async () => {
    const [progress] = await toLangChainTools(toolkit, { include: { ids: ['fx:progress'] } });
    const recorder = new Recorder();
    const call = { id: 'p', name: 'fx__progress', args: { steps: 3 }, type: 'tool_call' as const };
    const message = await progress?.invoke(call, { callbacks: [recorder] });
    expect(message).toMatchObject({ tool_call_id: 'p', status: 'success' });
    const kinds = recorder.events.map((event) => event.kind);
    expect(kinds[0]).toBe('start');
    expect(recorder.events[0]?.data).toMatchObject({ input: '{"steps":3}', toolCallId: 'p' });
    expect(kinds.at(-1)).toBe('end');
    expect(recorder.events.at(-1)?.data).toBe(message);
    const reports = (kind: string) =>
      recorder.events.filter((event) => event.kind === kind).map((event) => event.data);
    const expected: ToolProgress[] = [1, 2, 3].map((step) => ({
      toolId: 'fx:progress',
      progress: step,
      total: 3,
      message: `step ${String(step)}`,
    }));
    expect(reports('event')).toEqual(expected);
    expect(reports(`custom:${PROGRESS_EVENT}`)).toEqual(expected);
  });

  it('streams progress as on_custom_event through streamEvents', async () => {
    const [progress] = await toLangChainTools(toolkit, { include: { ids: ['fx:progress'] } });
    if (progress === undefined) throw new Error('no fx__progress tool');
    const seen: string[] = [];
    for await (const event of progress.streamEvents({ steps: 2 }, { version: 'v2' })) {
      seen.push(event.event === 'on_custom_event' ? `${event.event}:${event.name}` : event.event);
    }
    expect(seen).toEqual([
      'on_tool_start',
      `on_custom_event:${PROGRESS_EVENT}`,
      `on_custom_event:${PROGRESS_EVENT}`,
      'on_tool_end',
    ]);
  });

  it('cancels the upstream call when the RunnableConfig signal aborts: the server sees notifications/cancelled', async () => {
    const label = `abort-${String(Date.now())}`;
    const tools = await toLangChainTools(toolkit, { include: { ids: ['fx:slow'] } });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'slow', name: 'fx__slow', args: { ms: 120_000, label } }] },
      { text: 'never reached' },
    ]);
    const controller = new AbortController();
    // The tool's first progress report says it has started upstream: abort then.
    const recorder = new Recorder((kind) => {
      if (kind === 'event') controller.abort();
    });
    await expect(
      runToolLoop(model, tools, 'wait', { signal: controller.signal, callbacks: [recorder] }),
    ).rejects.toMatchObject({ code: 'cancelled' });
    expect(model.turns).toHaveLength(1);
    expect(recorder.events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(['start', 'error']),
    );
    const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
    expect(seen.structured).toEqual({ cancelled: true });
  });

  it("cancels the upstream call when the RunnableConfig's timeout passes", async () => {
    const label = `timeout-${String(Date.now())}`;
    const [slow] = await toLangChainTools(toolkit, { include: { ids: ['fx:slow'] } });
    const call = { id: 't', name: 'fx__slow', args: { ms: 120_000, label }, type: 'tool_call' };
    await expect(slow?.invoke(call, { timeout: 300 })).rejects.toMatchObject({
      name: 'ToolError',
      code: 'cancelled',
    });
    const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
    expect(seen.structured).toEqual({ cancelled: true });
  });

  it('returns the content alone when invoked with plain arguments, as LangChain tools do', async () => {
    const [add] = await toLangChainTools(toolkit, { include: { ids: ['fx:add'] } });
    expect(await add?.invoke({ a: 1, b: 2 })).toBe('{"sum":3}');
  });
});
