import type { ToolSource } from '@toolplane/adapter-kit';
import { localSource } from '@toolplane/test-support/local-source';
import { createIndex } from '@toolplane/toolindex';
import { EXPOSED_NAME_PATTERN, type Tool } from '@toolplane/toolmodel';
import { mcpToolResult } from '@toolplane/toolrun';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OUTPUT_CHARS, type AiSdkToolOutput, type ResultOutput } from './results.js';
import { textStep, toolCallStep } from './testing/model-steps.js';
import { toAiSdkTools } from './tools.js';

const object = { type: 'object' } as const;

/** Runs one scripted step that calls `toolName` with `input`; returns what the model was told. */
async function callOnce(source: ToolSource, toolName: string, input: unknown, max?: number) {
  const tools = await toAiSdkTools(source, max === undefined ? {} : { maxOutputChars: max });
  const model = new MockLanguageModelV3({
    doGenerate: [toolCallStep([{ toolCallId: 'x', toolName, input }]), textStep('ok')],
  });
  const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'go' });
  const told = (model.doGenerateCalls[1]?.prompt ?? [])
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content)[0];
  const step = result.steps[0];
  return {
    told: told as { output: { type: string; value: unknown } } | undefined,
    output: step?.toolResults[0]?.output as AiSdkToolOutput | undefined,
    errors: step?.content.filter((part) => part.type === 'tool-error') ?? [],
  };
}

describe('toModelOutput of a tool', () => {
  it('takes the output itself (ai 5) as well as { toolCallId, input, output } (ai 6 and later)', async () => {
    const source = localSource([
      { tool: { namespace: 'v', name: 'say', inputSchema: object }, run: () => 'hi' },
    ]);
    const say = (await toAiSdkTools(source)).v__say;
    const output: ResultOutput = { type: 'result', content: [{ type: 'text', text: 'hi' }] };
    const told = { type: 'text', value: 'hi' };
    expect(await say?.toModelOutput?.({ toolCallId: 'c', input: {}, output })).toEqual(told);
    expect(await say?.toModelOutput?.(output as never)).toEqual(told);
  });
});

describe('toAiSdkTools with hostile tools', () => {
  it('gives names that collide once sanitised distinct legal names, each calling its own tool', async () => {
    const source = localSource([
      { tool: { namespace: 'a', name: 'b.c', inputSchema: object }, run: () => 'dotted' },
      { tool: { namespace: 'a', name: 'b_c', inputSchema: object }, run: () => 'underscored' },
      { tool: { namespace: 'a__b', name: 'c', inputSchema: object }, run: () => 'namespaced' },
      { tool: { namespace: 'a', name: 'b__c', inputSchema: object }, run: () => 'doubled' },
    ]);
    const tools = await toAiSdkTools(source);
    const names = Object.keys(tools);
    expect(names).toHaveLength(4);
    expect(names).not.toContain('a__b__c');
    for (const name of names) expect(name).toMatch(EXPOSED_NAME_PATTERN);
    const answers = new Set<string>();
    for (const name of names) {
      const { told } = await callOnce(source, name, {});
      answers.add(String(told?.output.value));
    }
    expect(answers).toEqual(new Set(['dotted', 'underscored', 'namespaced', 'doubled']));
  });

  it('names a tool without a namespace by its bare name', async () => {
    const source = localSource([
      { tool: { name: 'plain', inputSchema: object }, run: () => 'bare' },
      { tool: { namespace: 'ns', name: 'plain', inputSchema: object }, run: () => 'namespaced' },
    ]);
    expect(Object.keys(await toAiSdkTools(source)).sort()).toEqual(['ns__plain', 'plain']);
    const { told } = await callOnce(source, 'plain', {});
    expect(told?.output.value).toBe('bare');
  });

  it('shortens the longest legal IDs (64 + 128 characters) to 64, stably; 300 characters never register', async () => {
    const long = { namespace: 'n'.repeat(64), name: 'x'.repeat(128), inputSchema: object };
    const longer = { namespace: 'n'.repeat(64), name: `${'x'.repeat(127)}y`, inputSchema: object };
    const source = localSource([
      { tool: long, run: () => 'long' },
      { tool: longer, run: () => 'longer' },
    ]);
    const first = Object.keys(await toAiSdkTools(source));
    expect(first).toHaveLength(2);
    for (const name of first) expect(name.length).toBeLessThanOrEqual(64);
    expect(Object.keys(await toAiSdkTools(source))).toEqual(first);
    const { told } = await callOnce(source, first[1] ?? '', {});
    expect(['long', 'longer']).toContain(told?.output.value);
    // A 300-character name is refused by the index, so no adapter ever has to name it.
    const index = createIndex();
    expect(() =>
      index.registerTool(
        { name: 'z'.repeat(300), inputSchema: object },
        { kind: 'local', local: { name: 'h' } },
      ),
    ).toThrow(expect.objectContaining({ code: 'invalid_tool' }) as Error);
  });

  it('passes a recursive ($ref) schema to the model as it is, and refuses an object cycle at registration', async () => {
    const tree = {
      type: 'object' as const,
      properties: { children: { type: 'array', items: { $ref: '#' } }, label: { type: 'string' } },
    };
    const source = localSource([
      { tool: { namespace: 't', name: 'tree', inputSchema: tree }, run: () => 'ok' },
    ]);
    const tools = await toAiSdkTools(source);
    const model = new MockLanguageModelV3({ doGenerate: [textStep('fine')] });
    await generateText({ model, tools, prompt: 'go' });
    expect(model.doGenerateCalls[0]?.tools?.[0]).toMatchObject({ inputSchema: tree });

    const cyclic: Tool['inputSchema'] = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    let thrown: unknown;
    try {
      localSource([
        { tool: { namespace: 't', name: 'cyclic', inputSchema: cyclic }, run: () => 'never' },
      ]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'invalid_tool' });
  });

  it('keeps a __proto__ property a plain property, and pollutes nothing', async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"x":{"type":"number"}}}',
    ) as Tool['inputSchema'];
    let seen: unknown;
    const source = localSource([
      {
        tool: { namespace: 'p', name: 'proto', inputSchema: schema },
        run: (args) => {
          seen = args;
          return 'ok';
        },
      },
    ]);
    const tools = await toAiSdkTools(source);
    const model = new MockLanguageModelV3({ doGenerate: [textStep('fine')] });
    await generateText({ model, tools, prompt: 'go' });
    const sent = JSON.stringify(model.doGenerateCalls[0]?.tools?.[0]);
    expect(sent).toContain('"__proto__":{"type":"string"}');

    // The model sends a __proto__ key: the AI SDK's parser refuses it before any tool runs.
    const { errors } = await callOnce(source, 'p__proto', JSON.parse('{"__proto__":"x","x":1}'));
    expect(seen).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(({} as Record<string, unknown>).x).toBeUndefined();

    // A plain call runs with the arguments as they were.
    await callOnce(source, 'p__proto', { x: 1 });
    expect(seen).toEqual({ x: 1 });
  });

  it('bounds a 10 MB result to maxOutputChars for the model, and keeps it whole in the step', async () => {
    const big = 'a'.repeat(10_000_000);
    const source = localSource([
      { tool: { namespace: 'b', name: 'big', inputSchema: object }, run: () => big },
      {
        tool: { namespace: 'b', name: 'picture', inputSchema: object },
        run: () =>
          mcpToolResult({
            content: [
              { type: 'text', text: 'a picture:' },
              { type: 'image', data: 'A'.repeat(1_000), mimeType: 'image/png' },
            ],
          }),
      },
    ]);
    const { told, output } = await callOnce(source, 'b__big', {});
    expect(told?.output.type).toBe('text');
    const value = String(told?.output.value);
    expect(value.length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARS + 200);
    expect(value).toContain(
      `${String(10_000_000 - DEFAULT_MAX_OUTPUT_CHARS)} of 10000000 characters left out`,
    );
    expect(output).toMatchObject({ type: 'result' });
    expect((output as ResultOutput).content[0]).toMatchObject({ text: big });

    // Media that does not fit is replaced by a note rather than cut.
    const small = await callOnce(source, 'b__picture', {}, 500);
    expect(small.told?.output).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'a picture:' },
        {
          type: 'text',
          text: '[toolplane: image (image/png, 1000 base64 characters) left out: over the output limit]',
        },
      ],
    });
    const fits = await callOnce(source, 'b__picture', {});
    expect(fits.told?.output).toMatchObject({
      value: [{ type: 'text' }, { type: 'image-data', mediaType: 'image/png' }],
    });
  });
});

describe('a result of many small blocks', () => {
  it('reaches the model within maxOutputChars: the blocks past it get one note, not one each', async () => {
    const source = localSource([
      {
        tool: { namespace: 'b', name: 'blocks', inputSchema: object },
        run: () =>
          mcpToolResult({
            content: [
              { type: 'image', data: 'AAAA', mimeType: 'image/png' },
              ...Array.from({ length: 50_000 }, () => ({ type: 'text' as const, text: 'ab' })),
            ],
          }),
      },
    ]);
    const { told } = await callOnce(source, 'b__blocks', {}, 1_000);
    const parts = told?.output.value as { type: string; text?: string }[];
    // The image's 4 characters and 332 blocks of 2, each with its separator, fill the bound;
    // each block left was a note.
    expect(parts).toHaveLength(334);
    expect(parts.at(-1)).toEqual({
      type: 'text',
      text: '[toolplane: 49668 more blocks left out: over the output limit]',
    });
  });
});

describe('toAiSdkTools handed the wrong thing', () => {
  const source = localSource([
    { tool: { namespace: 'v', name: 'say', inputSchema: object }, run: () => 'hi' },
  ]);

  it('refuses a source that is not a toolkit or { runner, index } with invalid_argument', async () => {
    for (const bad of [null, undefined, 42, 'toolkit', {}, { index: {} }]) {
      await expect(toAiSdkTools(bad as unknown as ToolSource)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
    await expect(toAiSdkTools(source, null as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('refuses a maxOutputChars that would leave every result out (NaN, 0, -1, text)', async () => {
    for (const bad of [Number.NaN, 0, -1, 2.5, '100']) {
      await expect(toAiSdkTools(source, { maxOutputChars: bad as number })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
    const { told } = await callOnce(source, 'v__say', {}, 10);
    expect(told?.output).toEqual({ type: 'text', value: 'hi' });
  });
});
