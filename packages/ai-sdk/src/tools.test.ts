import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { generateText, stepCountIs, streamText, type TextStreamPart, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OUTPUT_CHARS, type AiSdkToolOutput } from './results.js';
import { toAiSdkTools } from './tools.js';
import { finish, streamStep, textStep, toolCallStep } from './testing/model-steps.js';

const toolkit = useFixtureToolkit({ everything: true });

describe('toAiSdkTools with generateText', () => {
  it('runs get-sum and get-tiny-image over two steps and gives the model text and the image', async () => {
    const tools = await toAiSdkTools(toolkit, { include: { namespaces: ['everything'] } });
    expect(Object.keys(tools)).toContain('everything__get-sum');
    expect(Object.keys(tools).every((name) => name.startsWith('everything__'))).toBe(true);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'c1', toolName: 'everything__get-sum', input: { a: 2, b: 3 } },
          { toolCallId: 'c2', toolName: 'everything__get-tiny-image', input: {} },
        ]),
        textStep('2 + 3 = 5, and the image shows the MCP logo.'),
      ],
    });
    const result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'Add 2 and 3, then show me a tiny image.',
    });

    expect(result.text).toBe('2 + 3 = 5, and the image shows the MCP logo.');
    expect(result.steps).toHaveLength(2);
    // The tools reached the model with their JSON Schemas.
    const offered = model.doGenerateCalls[0]?.tools ?? [];
    const sum = offered.find((tool) => tool.name === 'everything__get-sum');
    expect(sum).toMatchObject({ type: 'function', inputSchema: { type: 'object' } });
    expect(JSON.stringify(sum)).toContain('"a"');

    // What the model was told in the second step.
    const toolMessages = (model.doGenerateCalls[1]?.prompt ?? []).filter((m) => m.role === 'tool');
    const parts = toolMessages.flatMap((message) => message.content);
    const sumResult = parts.find((p) => p.type === 'tool-result' && p.toolCallId === 'c1');
    expect(sumResult).toMatchObject({
      output: { type: 'text', value: 'The sum of 2 and 3 is 5.' },
    });
    const imageResult = parts.find((p) => p.type === 'tool-result' && p.toolCallId === 'c2');
    expect(imageResult).toMatchObject({ output: { type: 'content' } });
    const content = (imageResult as { output: { value: { type: string; mediaType?: string }[] } })
      .output.value;
    expect(content.map((part) => part.type)).toEqual(['text', 'image-data', 'text']);
    expect(content[1]?.mediaType).toBe('image/png');

    // The step's own record keeps the MCP result.
    const imageOutput = result.steps[0]?.toolResults.find((r) => r.toolCallId === 'c2')
      ?.output as AiSdkToolOutput;
    expect(imageOutput).toMatchObject({ type: 'result' });
  });

  it('tells the model a failing tool as an error result it can read, and a bad argument too', async () => {
    const tools = await toAiSdkTools(toolkit, { include: { ids: ['fx:fail', 'fx:add'] } });
    expect(Object.keys(tools).sort()).toEqual(['fx__add', 'fx__fail']);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'f', toolName: 'fx__fail', input: { message: 'disk full' } },
          { toolCallId: 'v', toolName: 'fx__add', input: { a: 'one', b: 2 } },
        ]),
        textStep('Both failed.'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'go' });
    expect(result.text).toBe('Both failed.');
    const parts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content);
    const failed = parts.find((p) => p.type === 'tool-result' && p.toolCallId === 'f');
    expect(failed).toMatchObject({ output: { type: 'error-text' } });
    expect(JSON.stringify(failed)).toContain('disk full');
    const invalid = parts.find((p) => p.type === 'tool-result' && p.toolCallId === 'v');
    expect(invalid).toMatchObject({ output: { type: 'error-text' } });
    expect(JSON.stringify(invalid)).toContain('validation');
    const output = result.steps[0]?.toolResults.find((r) => r.toolCallId === 'v')?.output;
    expect(output).toMatchObject({ type: 'result', isError: true, code: 'validation' });
  });

  it('asks for approval before the tools needsApproval picks, and runs the others', async () => {
    const tools = await toAiSdkTools(toolkit, {
      include: { ids: ['fx:add', 'fx:echo'] },
      needsApproval: (_tool, id) => id === 'fx:add',
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'a', toolName: 'fx__add', input: { a: 1, b: 2 } },
          { toolCallId: 'e', toolName: 'fx__echo', input: { text: 'hi' } },
        ]),
        textStep('never reached'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'go' });
    const content = result.steps[0]?.content ?? [];
    expect(content.filter((p) => p.type === 'tool-approval-request')).toEqual([
      expect.objectContaining({
        toolCall: expect.objectContaining({ toolCallId: 'a' }) as unknown,
      }),
    ]);
    expect(result.steps[0]?.toolResults.map((r) => r.toolCallId)).toEqual(['e']);
    // The step waits for the user's answer: the model is not asked again.
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('bounds a 10 MB MCP result for the model and keeps it whole in the step', async () => {
    const tools = await toAiSdkTools(toolkit, { include: { ids: ['fx:echo'] } });
    const big = 'b'.repeat(10_000_000);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([{ toolCallId: 'big', toolName: 'fx__echo', input: { text: big } }]),
        textStep('ok'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'echo' });
    const told = (call: number) =>
      (model.doGenerateCalls[call]?.prompt ?? [])
        .filter((m) => m.role === 'tool')
        .flatMap((m) => m.content)
        .at(-1) as { output: { type: string; value: string } };
    expect(told(1).output.type).toBe('text');
    expect(told(1).output.value.length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARS + 200);
    expect(told(1).output.value).toContain('characters left out');
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      content: [{ type: 'text', text: big }],
    });
  }, 60_000);

  it('gives structured content to the model as JSON', async () => {
    const tools = await toAiSdkTools(toolkit, { include: { ids: ['fx:add'] } });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([{ toolCallId: 's', toolName: 'fx__add', input: { a: 2, b: 40 } }]),
        textStep('42'),
      ],
    });
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'add' });
    const parts = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content);
    expect(parts[0]).toMatchObject({ output: { type: 'json', value: { sum: 42 } } });
  });
});

async function collect(stream: AsyncIterable<TextStreamPart<ToolSet>>) {
  const parts: TextStreamPart<ToolSet>[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('toAiSdkTools with streamText', () => {
  it('streams MCP progress as preliminary tool results, then the result', async () => {
    const tools = await toAiSdkTools(toolkit, {
      include: { ids: ['everything:trigger-long-running-operation'] },
    });
    const model = new MockLanguageModelV3({
      doStream: [
        streamStep([
          {
            type: 'tool-call',
            toolCallId: 'long',
            toolName: 'everything__trigger-long-running-operation',
            input: JSON.stringify({ duration: 0.3, steps: 3 }),
          },
          finish('tool-calls'),
        ]),
        streamStep([
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'done' },
          { type: 'text-end', id: 't' },
          finish('stop'),
        ]),
      ],
    });
    const result = streamText({ model, tools, stopWhen: stepCountIs(3), prompt: 'work' });
    const parts = await collect(result.fullStream);
    const results = parts.filter((p) => p.type === 'tool-result');
    const preliminary = results
      .filter((p) => p.preliminary === true)
      .map((p) => p.output as unknown);
    // The SDK reports every yield as preliminary, the last one (the result) as final too.
    expect(preliminary.slice(0, 3)).toEqual([
      { type: 'progress', progress: 1, total: 3 },
      { type: 'progress', progress: 2, total: 3 },
      { type: 'progress', progress: 3, total: 3 },
    ]);
    expect(preliminary.slice(3)).toEqual([expect.objectContaining({ type: 'result' })]);
    const final = results.filter((p) => p.preliminary !== true);
    expect(final).toHaveLength(1);
    expect(final[0]?.output).toMatchObject({
      type: 'result',
      content: [{ type: 'text', text: expect.stringContaining('completed') as unknown }],
    });
    expect(await result.text).toBe('done');
  });

  it('cancels the upstream call when the stream is aborted: the server sees notifications/cancelled', async () => {
    const label = `abort-${String(Date.now())}`;
    const tools = await toAiSdkTools(toolkit, { include: { ids: ['fx:slow'] } });
    const model = new MockLanguageModelV3({
      doStream: [
        streamStep([
          {
            type: 'tool-call',
            toolCallId: 'slow',
            toolName: 'fx__slow',
            input: JSON.stringify({ ms: 120_000, label }),
          },
          finish('tool-calls'),
        ]),
        streamStep([finish('stop')]),
      ],
    });
    const controller = new AbortController();
    const result = streamText({
      model,
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'wait',
      abortSignal: controller.signal,
    });
    const parts: TextStreamPart<ToolSet>[] = [];
    for await (const part of result.fullStream) {
      parts.push(part);
      // The tool's first progress report says it has started: abort then.
      if (part.type === 'tool-result' && part.preliminary === true) controller.abort();
    }
    expect(parts.some((p) => p.type === 'abort')).toBe(true);
    expect(parts.some((p) => p.type === 'tool-result' && p.preliminary !== true)).toBe(false);
    const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
    expect(seen.structured).toEqual({ cancelled: true });
  });
});
