import type { ToolSource } from '@toolplane/adapter-kit';
import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { runToolCalls } from './run.js';
import type { CallProgress } from './index.js';
import type { Step } from '@toolplane/test-support/mock-server';
import { completion, toolCall, useOpenAIHarness } from './testing/scripted-model.js';
import { openAIToolReport, toOpenAIResponsesTools, toOpenAITools } from './tools.js';

// The real `openai` client, pointed at a scripted model on 127.0.0.1 that speaks the Chat
// Completions and Responses wire formats and checks every request it receives.

const harness = useOpenAIHarness();
const { toolkit } = harness;
const client = (script: Step[]): Promise<OpenAI> => harness.client(script);

const calls = [
  toolCall('c1', 'fx__add', '{"a":2,"b":3}'),
  toolCall('c2', 'fx__mixed', '{}'),
  toolCall('c3', 'fx__report-error', '{"message":"no such city"}'),
  toolCall('c4', 'fx__add', '{"a":2,'),
];

describe('toOpenAITools and runToolCalls with Chat Completions', () => {
  it('offers valid tools, answers every call by its id, images in a user message, errors as errors', async () => {
    const openai = await client([
      completion({ role: 'assistant', content: null, refusal: null, tool_calls: calls }),
      completion({ role: 'assistant', content: '5, a picture, and no city.', refusal: null }),
    ]);
    const tools = await toOpenAITools(toolkit, { include: { namespaces: ['fx'] } });
    expect(tools.map((tool) => tool.function.name)).toContain('fx__add');
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'go' }];
    const first = await openai.chat.completions.create({ model: 'mock', messages, tools });
    const assistant = first.choices[0]?.message;
    if (assistant === undefined) throw new Error('no message');
    const appended = await runToolCalls(toolkit, first, { tools });
    messages.push(assistant, ...appended);
    const second = await openai.chat.completions.create({ model: 'mock', messages, tools });
    expect(second.choices[0]?.message.content).toBe('5, a picture, and no city.');

    // The model server found nothing wrong in either request.
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);
    const told = harness.server()?.requests[1]?.body.messages as Record<string, unknown>[];
    expect(told.slice(2, 6).map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'c1'],
      ['tool', 'c2'],
      ['tool', 'c3'],
      ['tool', 'c4'],
    ]);
    expect(told[2]?.content).toBe('5');
    expect(told[3]?.content).toContain('[1 image attached in the next user message]');
    expect(told[4]?.content).toBe('Error (execution): no such city');
    expect(told[5]?.content).toMatch(/^Error: invalid_argument: the arguments are not valid JSON/);
    const images = told[6] as {
      role: string;
      content: { type: string; image_url?: { url: string } }[];
    };
    expect(images.role).toBe('user');
    expect(images.content[1]?.image_url?.url).toMatch(/^data:image\/png;base64,/);
  });

  it('lists the tools again when no tool list is passed, and answers an unknown name as an error', async () => {
    const appended = await runToolCalls(
      toolkit,
      { tool_calls: [toolCall('x', 'fx__nope', '{}'), toolCall('y', 'fx__echo', '{"text":"hi"}')] },
      { include: { namespaces: ['fx'] } },
    );
    expect(appended).toEqual([
      { role: 'tool', tool_call_id: 'x', content: 'Error: not_found: no tool is named "fx__nope"' },
      { role: 'tool', tool_call_id: 'y', content: expect.stringContaining('hi') as unknown },
    ]);
    expect(await runToolCalls(toolkit, { choices: [{ message: { tool_calls: null } }] })).toEqual(
      [],
    );
  });
});

describe('runToolCalls on a reply cut off by its token limit', () => {
  it('answers the call a length stop cut as cut off, never running it', async () => {
    const openai = await client([
      () => ({
        ...completion({})(),
        choices: [
          {
            index: 0,
            finish_reason: 'length',
            logprobs: null,
            message: {
              role: 'assistant',
              content: null,
              refusal: null,
              tool_calls: [
                toolCall('whole', 'fx__echo', { text: 'hi' }),
                toolCall('cut', 'fx__json-text', '{"value": [1, 2'),
              ],
            },
          },
        ],
      }),
    ]);
    const tools = await toOpenAITools(toolkit, { include: { namespaces: ['fx'] } });
    const reply = await openai.chat.completions.create({
      model: 'mock',
      messages: [{ role: 'user', content: 'go' }],
      tools,
    });
    const appended = await runToolCalls(toolkit, reply, { tools });
    expect(appended.map((m) => [m.role, (m as { tool_call_id?: string }).tool_call_id])).toEqual([
      ['tool', 'whole'],
      ['tool', 'cut'],
    ]);
    expect(appended[0]?.content).toBe('hi');
    expect(appended[1]?.content).toMatch(
      /^Error: invalid_argument: the reply was cut off \(length\)/,
    );
  });

  it('answers the last call of a completion the content filter stopped as cut off', async () => {
    const [message] = await runToolCalls(
      toolkit,
      {
        choices: [
          {
            finish_reason: 'content_filter',
            message: { tool_calls: [toolCall('c', 'fx__echo', '{"text":"h"}')] },
          },
        ],
      },
      { include: { namespaces: ['fx'] } },
    );
    expect(message?.content).toMatch(
      /^Error: invalid_argument: the reply was cut off \(content_filter\)/,
    );
  });

  it('answers an incomplete Responses function call as cut off, never running it', async () => {
    const openai = await client([
      () => ({
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        model: 'mock',
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'cut',
            name: 'fx__json-text',
            arguments: '{"value": [1, 2',
            status: 'incomplete',
          },
        ],
      }),
    ]);
    const tools = await toOpenAIResponsesTools(toolkit, { include: { namespaces: ['fx'] } });
    const response = await openai.responses.create({ model: 'mock', input: 'go', tools });
    const [output] = await runToolCalls(toolkit, response, { tools });
    expect(output?.output).toMatch(
      /^Error: invalid_argument: the reply was cut off \(max_output_tokens\)/,
    );
  });
});

describe('runToolCalls progress', () => {
  it("tells onProgress the server's progress reports by call, for a tool and through call_tool", async () => {
    const heard: CallProgress[] = [];
    const onProgress = (event: CallProgress): void => {
      heard.push(event);
    };
    const tools = await toOpenAITools(toolkit, { include: { namespaces: ['fx'] } });
    const appended = await runToolCalls(
      toolkit,
      { tool_calls: [toolCall('p', 'fx__progress', '{"steps":2}')] },
      { tools, onProgress },
    );
    expect(appended).toEqual([{ role: 'tool', tool_call_id: 'p', content: '2' }]);
    const search = await toOpenAITools(toolkit, {
      include: { namespaces: ['fx'] },
      mode: 'search',
    });
    await runToolCalls(
      toolkit,
      {
        tool_calls: [
          toolCall(
            's',
            'call_tool',
            JSON.stringify({ id: 'fx:progress', arguments: '{"steps":3}' }),
          ),
        ],
      },
      { tools: search, onProgress },
    );
    expect(
      heard.map((event) => [event.callId, event.name, event.toolId, event.progress, event.total]),
    ).toEqual([
      ['p', 'fx__progress', 'fx:progress', 1, 2],
      ['p', 'fx__progress', 'fx:progress', 2, 2],
      ['s', 'call_tool', 'call_tool', 1, 3],
      ['s', 'call_tool', 'call_tool', 2, 3],
      ['s', 'call_tool', 'call_tool', 3, 3],
    ]);
    expect(heard[0]?.message).toBe('step 1');
  });
});

describe('toOpenAIResponsesTools and runToolCalls with the Responses API', () => {
  it('answers function calls with function_call_output items, images as input_image', async () => {
    const response = (output: unknown[]) => () => ({
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      model: 'mock',
      status: 'completed',
      output,
    });
    const functionCalls = calls.map((call, i) => ({
      type: 'function_call',
      id: `fc_${String(i)}`,
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: 'completed',
    }));
    const openai = await client([
      response(functionCalls),
      response([
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'done', annotations: [] }],
        },
      ]),
    ]);
    const tools = await toOpenAIResponsesTools(toolkit, { include: { namespaces: ['fx'] } });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'go' }];
    const first = await openai.responses.create({ model: 'mock', input, tools });
    const outputs = await runToolCalls(toolkit, first, { tools });
    input.push(...(first.output as ResponseInputItem[]), ...outputs);
    const second = await openai.responses.create({ model: 'mock', input, tools });
    expect(second.output_text).toBe('done');
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);
    expect(outputs.map((o) => o.call_id)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(outputs[0]?.output).toBe('5');
    const mixed = outputs[1]?.output as { type: string }[];
    expect(mixed.map((part) => part.type)).toEqual(['input_text', 'input_image', 'input_text']);
    expect(outputs[2]?.output).toBe('Error (execution): no such city');
    expect(outputs[3]?.output).toMatch(/^Error: invalid_argument/);
  });
});

describe('names and strictness', () => {
  const source = (): ToolSource => {
    const index = createIndex();
    const local = createLocalRegistry();
    const names = ['a.b', 'a_b', 'x'.repeat(120), 'free'];
    names.forEach((name, i) => {
      local.register(`h${String(i)}`, (args) => ({ name, args }));
      index.registerTool(
        {
          namespace: 'h',
          name,
          inputSchema:
            name === 'free'
              ? { type: 'object', properties: { data: { type: 'object' } } }
              : { type: 'object', properties: { n: { type: 'integer' } } },
        },
        { kind: 'local', local: { name: `h${String(i)}` } },
      );
    });
    return { index, runner: createRunner({ index, local }) };
  };

  it('maps sanitised, colliding and over-long names back to their tools, strict nulls removed', async () => {
    const hostile = source();
    const tools = await toOpenAITools(hostile);
    const names = tools.map((tool) => tool.function.name);
    expect(new Set(names).size).toBe(4);
    expect(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true);
    const appended = await runToolCalls(
      hostile,
      { tool_calls: names.map((name, i) => toolCall(`c${String(i)}`, name, '{"n":null}')) },
      { tools },
    );
    const results = appended.map((message) => JSON.parse(message.content as string) as unknown);
    expect(results).toEqual(
      expect.arrayContaining([
        { name: 'a.b', args: {} },
        { name: 'a_b', args: {} },
        { name: 'x'.repeat(120), args: {} },
      ]),
    );
  });

  it('sends strict: false with a reason where the schema cannot be strict', async () => {
    const tools = await toOpenAITools(source());
    const free = tools.find((tool) => tool.function.name === 'h__free');
    expect(free?.function.strict).toBe(false);
    const report = openAIToolReport(tools).find((entry) => entry.name === 'h__free');
    expect(report?.reason).toBe(
      '/properties/data: an object with no declared properties (free-form)',
    );
    expect(tools.filter((tool) => tool.function.strict === true)).toHaveLength(3);
    expect(
      (await toOpenAITools(source(), { strict: false })).every((t) => t.function.strict === false),
    ).toBe(true);
  });

  it('offers search mode: three tools, and a call_tool call reaching the named tool', async () => {
    const hostile = source();
    const tools = await toOpenAITools(hostile, { mode: 'search' });
    expect(tools.map((tool) => [tool.function.name, tool.function.strict])).toEqual([
      ['search_tools', true],
      ['describe_tool', true],
      ['call_tool', true],
    ]);
    const [answer] = await runToolCalls(
      hostile,
      { tool_calls: [toolCall('s', 'call_tool', '{"id":"h:a.b","arguments":"{\\"n\\":1}"}')] },
      { tools },
    );
    expect(JSON.parse(answer?.content as string)).toEqual({ name: 'a.b', args: { n: 1 } });
  });

  it('rejects with cancelled when listing is aborted', async () => {
    await expect(toOpenAITools(source(), { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });
});

describe('maxTurnOutputChars', () => {
  it("shares the bound among a turn's results on their way to the model", async () => {
    const letters = ['a', 'b', 'c'];
    const openai = await client([
      completion({
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: letters.map((c) => toolCall(c, 'fx__echo', { text: c.repeat(3_000) })),
      }),
      completion({ role: 'assistant', content: 'ok', refusal: null }),
    ]);
    const tools = await toOpenAITools(toolkit, { include: { namespaces: ['fx'] } });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'go' }];
    const first = await openai.chat.completions.create({ model: 'mock', messages, tools });
    const assistant = first.choices[0]?.message;
    if (assistant === undefined) throw new Error('no message');
    messages.push(
      assistant,
      ...(await runToolCalls(toolkit, first, { tools, maxTurnOutputChars: 3_000 })),
    );
    await openai.chat.completions.create({ model: 'mock', messages, tools });
    const told = harness.server()?.requests[1]?.body.messages as Record<string, unknown>[];
    expect(told.slice(2).map((m) => [m.tool_call_id, m.content])).toEqual(
      letters.map((c) => [c, `${c.repeat(1_000)}\n[toolplane: 2000 of 3000 characters left out]`]),
    );
  });
});
