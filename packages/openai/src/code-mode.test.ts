import { createCodeMode, type CodeMode } from '@toolplane/codemode';
import type { Step } from '@toolplane/test-support/mock-server';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolCalls } from './run.js';
import { completion, toolCall, useOpenAIHarness } from './testing/scripted-model.js';
import { toOpenAIResponsesTools, toOpenAITools } from './tools.js';

// Code mode with the real `openai` client and a scripted model on 127.0.0.1: the model gets
// search_tools, describe_tool and run_code, and the program's calls reach the stdio fixture.

const harness = useOpenAIHarness();
const { toolkit } = harness;
const client = (script: Step[]): Promise<OpenAI> => harness.client(script);

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(toolkit, { timeoutMs: 20_000, filter: { namespaces: ['fx'] } });
});
afterAll(async () => {
  await code.close();
});

const program = [
  "console.log('adding');",
  'const { sum } = await tools.fx.add({ a: 20, b: 22 });',
  'return { sum };',
].join('\n');

describe("toOpenAITools({ mode: 'code' }) and runToolCalls", () => {
  it('offers the three code-mode tools and answers each, the program running upstream', async () => {
    const tools = await toOpenAITools(toolkit, { mode: 'code', codeMode: code });
    expect(tools.map((tool) => tool.function.name)).toEqual([
      'search_tools',
      'describe_tool',
      'run_code',
    ]);
    const openai = await client([
      completion({
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [
          toolCall('s', 'search_tools', { query: 'add numbers', limit: null }),
          toolCall('d', 'describe_tool', { id: 'fx:add' }),
          toolCall('r', 'run_code', { code: program }),
          toolCall('x', 'run_code', { code: 'while (true) {' }),
        ],
      }),
      completion({ role: 'assistant', content: '42', refusal: null }),
    ]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'add' }];
    const first = await openai.chat.completions.create({ model: 'mock', messages, tools });
    const answers = await runToolCalls(toolkit, first, { tools });
    const assistant = first.choices[0]?.message;
    if (assistant === undefined) throw new Error('no message');
    messages.push(assistant, ...answers);
    const second = await openai.chat.completions.create({ model: 'mock', messages, tools });
    expect(second.choices[0]?.message.content).toBe('42');
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);

    const content = answers.map((answer) => answer.content as string);
    expect(JSON.parse(content[0] ?? '')).toMatchObject({
      results: expect.arrayContaining([
        expect.objectContaining({ id: 'fx:add', call: 'tools.fx.add' }),
      ]) as unknown,
    });
    expect(content[1]).toContain('add(args: {');
    expect(content[2]).toBe('{"sum":42}\nlogs:\n[log] adding');
    expect(content[3]).toMatch(/^Error: invalid_argument: SyntaxError: /);
  });

  it('offers them to the Responses API too', async () => {
    const tools = await toOpenAIResponsesTools(toolkit, { mode: 'code', codeMode: code });
    expect(tools.map((tool) => [tool.name, tool.strict])).toEqual([
      ['search_tools', true],
      ['describe_tool', true],
      ['run_code', true],
    ]);
  });

  it('refuses code mode without a code mode to run on', async () => {
    await expect(toOpenAITools(toolkit, { mode: 'code' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
