import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { ResultOutput } from './results.js';
import { textStep, toolCallStep } from './testing/model-steps.js';
import { toAiSdkTools } from './tools.js';

const toolkit = useFixtureToolkit({ everything: true });

describe("toAiSdkTools({ mode: 'search' })", () => {
  it('exposes only search_tools, describe_tool and call_tool, over the filtered catalogue', async () => {
    const tools = await toAiSdkTools(toolkit, {
      mode: 'search',
      include: { namespaces: ['everything'] },
    });
    expect(Object.keys(tools).sort()).toEqual(['call_tool', 'describe_tool', 'search_tools']);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 's', toolName: 'search_tools', input: { query: 'sum two numbers' } },
        ]),
        toolCallStep([
          { toolCallId: 'd', toolName: 'describe_tool', input: { id: 'everything:get-sum' } },
          { toolCallId: 'hidden', toolName: 'describe_tool', input: { id: 'fx:add' } },
        ]),
        toolCallStep([
          {
            toolCallId: 'c',
            toolName: 'call_tool',
            input: { id: 'everything:get-sum', arguments: { a: 1, b: 2 } },
          },
          { toolCallId: 'no', toolName: 'call_tool', input: { id: 'fx:add', arguments: {} } },
          { toolCallId: 'bad', toolName: 'call_tool', input: { id: 'not an id!' } },
        ]),
        textStep('1 + 2 = 3'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'add' });
    expect(result.text).toBe('1 + 2 = 3');
    const outputs = new Map(
      result.steps.flatMap((step) =>
        step.toolResults.map((r) => [r.toolCallId, r.output as ResultOutput] as const),
      ),
    );

    const found = outputs.get('s')?.structuredContent as { results: { id: string }[] };
    expect(found.results.map((r) => r.id)).toContain('everything:get-sum');
    expect(found.results.every((r) => r.id.startsWith('everything:'))).toBe(true);

    expect(outputs.get('d')?.structuredContent).toMatchObject({
      id: 'everything:get-sum',
      name: 'get-sum',
      inputSchema: { type: 'object' },
    });
    expect(outputs.get('hidden')).toMatchObject({ isError: true, code: 'not_found' });

    expect(outputs.get('c')).toMatchObject({
      type: 'result',
      content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }],
    });
    expect(outputs.get('no')).toMatchObject({ isError: true, code: 'not_found' });
    expect(outputs.get('bad')).toMatchObject({ isError: true, code: 'not_found' });

    // The model read the search results as JSON and the failures as errors.
    const told = model.doGenerateCalls[3]?.prompt
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content);
    expect(told?.find((p) => p.type === 'tool-result' && p.toolCallId === 's')).toMatchObject({
      output: { type: 'json' },
    });
    expect(told?.find((p) => p.type === 'tool-result' && p.toolCallId === 'no')).toMatchObject({
      output: { type: 'error-text' },
    });
  });

  it('has call_tool ask for approval when the tool it names needs it', async () => {
    const tools = await toAiSdkTools(toolkit, {
      mode: 'search',
      needsApproval: (_tool, id) => id === 'fx:add',
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'risky', toolName: 'call_tool', input: { id: 'fx:add', arguments: {} } },
          {
            toolCallId: 'safe',
            toolName: 'call_tool',
            input: { id: 'fx:echo', arguments: { text: 'hi' } },
          },
        ]),
        textStep('never reached'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'go' });
    const requests = (result.steps[0]?.content ?? []).filter(
      (p) => p.type === 'tool-approval-request',
    );
    expect(requests.map((r) => r.toolCall.toolCallId)).toEqual(['risky']);
    expect(result.steps[0]?.toolResults.map((r) => r.toolCallId)).toEqual(['safe']);
  });

  it('answers a search_tools call with bad arguments as an error the model reads', async () => {
    const tools = await toAiSdkTools(toolkit, { mode: 'search' });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'l', toolName: 'search_tools', input: { query: 'x', limit: 1000 } },
        ]),
        textStep('ok'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'go' });
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      isError: true,
      code: 'invalid_argument',
    });
  });
});
