import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { runToolUses } from './run.js';
import type { CallProgress } from './index.js';
import type { Step } from '@toolplane/test-support/mock-server';
import { message, streamedUses, use, useAnthropicHarness } from './testing/scripted-model.js';
import { toAnthropicTools } from './tools.js';

// The real `@anthropic-ai/sdk` client, pointed at a scripted model on 127.0.0.1 that speaks the
// Messages API and checks every request it receives.

const harness = useAnthropicHarness();
const { toolkit } = harness;
const client = (script: Step[]): Promise<Anthropic> => harness.client(script);

describe('toAnthropicTools and runToolUses with the Messages API', () => {
  it('offers valid tools and answers every tool_use with text, image and error results', async () => {
    const anthropic = await client([
      message([
        { type: 'text', text: 'Let me check.' },
        use('t1', 'fx__add', { a: 2, b: 3 }),
        use('t2', 'fx__mixed', {}),
        use('t3', 'fx__report-error', { message: 'no such city' }),
        use('t4', 'fx__add', '{"a":2,'),
      ]),
      message([{ type: 'text', text: 'All done.' }], 'end_turn'),
    ]);
    const tools = await toAnthropicTools(toolkit, { include: { namespaces: ['fx'] } });
    const messages: MessageParam[] = [{ role: 'user', content: 'go' }];
    const first = await anthropic.messages.create({
      model: 'mock',
      max_tokens: 100,
      messages,
      tools,
    });
    const results = await runToolUses(toolkit, first, { tools });
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: results },
    );
    const second = await anthropic.messages.create({
      model: 'mock',
      max_tokens: 100,
      messages,
      tools,
    });
    expect(second.content).toEqual([{ type: 'text', text: 'All done.' }]);

    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);
    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ['t1', false],
      ['t2', false],
      ['t3', true],
      ['t4', true],
    ]);
    expect(results[0]?.content).toEqual([{ type: 'text', text: '5' }]);
    const mixed = results[1]?.content as { type: string; source?: { media_type: string } }[];
    expect(mixed.map((block) => block.type)).toEqual(['text', 'image', 'text']);
    expect(mixed[1]?.source?.media_type).toBe('image/png');
    expect(results[2]?.content).toEqual([{ type: 'text', text: 'no such city' }]);
    expect(results[3]?.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^invalid_argument: the arguments are not valid JSON/,
        ) as unknown,
      },
    ]);
  });

  it('answers an unknown name as an error and lists the tools again without a tool list', async () => {
    const results = await runToolUses(toolkit, [use('x', 'fx__nope', {})], {
      include: { namespaces: ['fx'] },
    });
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'x',
        is_error: true,
        content: [{ type: 'text', text: 'not_found: no tool is named "fx__nope"' }],
      },
    ]);
    expect(await runToolUses(toolkit, { content: [{ type: 'text' }] })).toEqual([]);
  });
});

describe('runToolUses on a reply cut off by max_tokens', () => {
  const cut = [
    { id: 'whole', name: 'fx__echo', json: '{"text":"hi"}' },
    // The SDK reads this text leniently as { value: [1, 2] }: a valid call nobody made.
    { id: 'cut', name: 'fx__json-text', json: '{"value": [1, 2, 3' },
  ];
  // The cut reply, streamed by the real client and read as a whole by its finalMessage().
  const streamedReply = async () => {
    const anthropic = await client([streamedUses(cut, 'max_tokens')]);
    const tools = await toAnthropicTools(toolkit, { include: { namespaces: ['fx'] } });
    const reply = await anthropic.messages
      .stream({ model: 'mock', max_tokens: 20, messages: [{ role: 'user', content: 'go' }], tools })
      .finalMessage();
    return { tools, reply };
  };

  it('answers the tool_use the limit cut as cut off, never running it, and runs the whole ones', async () => {
    const { tools, reply } = await streamedReply();
    expect(reply.stop_reason).toBe('max_tokens');
    const results = await runToolUses(toolkit, reply, { tools });
    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ['whole', false],
      ['cut', true],
    ]);
    expect(results[0]?.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(results[1]?.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^invalid_argument: the reply was cut off \(max_tokens\)/,
        ) as unknown,
      },
    ]);
  });

  it('answers the last tool_use of a reply the classifiers stopped (refusal) as cut off', async () => {
    const [whole, refused] = await runToolUses(
      toolkit,
      {
        content: [use('whole', 'fx__echo', { text: 'hi' }), use('cut', 'fx__echo', { text: 'h' })],
        stop_reason: 'refusal',
      },
      { include: { namespaces: ['fx'] } },
    );
    expect(whole?.is_error).toBeUndefined();
    expect(refused?.is_error).toBe(true);
    expect(refused?.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^invalid_argument: the reply was cut off \(refusal\)/,
        ) as unknown,
      },
    ]);
  });

  it("reads a streamed block's own JSON text strictly when only the blocks are passed", async () => {
    const { tools, reply } = await streamedReply();
    const results = await runToolUses(toolkit, reply.content, { tools });
    expect(results.map((r) => r.is_error ?? false)).toEqual([false, true]);
    expect(results[1]?.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^invalid_argument: the arguments are not valid JSON/,
        ) as unknown,
      },
    ]);
  });
});

describe('runToolUses progress', () => {
  it("tells onProgress the server's progress reports, tagged with the tool_use they belong to", async () => {
    const heard: CallProgress[] = [];
    const results = await runToolUses(
      toolkit,
      [use('a', 'fx__progress', { steps: 2 }), use('b', 'fx__progress', { steps: 1 })],
      {
        include: { namespaces: ['fx'] },
        onProgress: (event) => {
          heard.push(event);
        },
      },
    );
    expect(results.map((result) => result.is_error)).toEqual([undefined, undefined]);
    expect(heard.filter((event) => event.callId === 'a').map((event) => event.progress)).toEqual([
      1, 2,
    ]);
    expect(heard.filter((event) => event.callId === 'b')).toEqual([
      {
        callId: 'b',
        name: 'fx__progress',
        toolId: 'fx:progress',
        progress: 1,
        total: 1,
        message: 'step 1',
      },
    ]);
  });
});

describe('hostile tools', () => {
  it('names colliding and over-long tools apart, and cuts a 10 MB result', async () => {
    const index = createIndex();
    const local = createLocalRegistry();
    const names = ['a.b', 'a_b', 'y'.repeat(128), 'big'];
    names.forEach((name, i) => {
      local.register(`h${String(i)}`, () => (name === 'big' ? 'z'.repeat(10 * 1024 * 1024) : name));
      index.registerTool(
        { namespace: 'h', name, inputSchema: { type: 'object', properties: {} } },
        { kind: 'local', local: { name: `h${String(i)}` } },
      );
    });
    const source = { index, runner: createRunner({ index, local }) };
    const tools = await toAnthropicTools(source);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(4);
    const results = await runToolUses(
      source,
      tools.map((tool, i) => use(`u${String(i)}`, tool.name, {})),
      { tools, maxOutputChars: 10_000 },
    );
    const texts = results.map((r) => (r.content as { text: string }[])[0]?.text ?? '');
    expect(texts).toEqual(expect.arrayContaining(['a.b', 'a_b', 'y'.repeat(128)]));
    const big = texts.find((text) => text.startsWith('zzz')) ?? '';
    expect(big.length).toBeLessThan(10_200);
    expect(big).toContain('characters left out');
  });
});

describe('maxTurnOutputChars', () => {
  it("shares the bound among a turn's results on their way to the model", async () => {
    const letters = ['a', 'b', 'c'];
    const anthropic = await client([
      message(letters.map((c) => use(c, 'fx__echo', { text: c.repeat(3_000) }))),
      message([{ type: 'text', text: 'ok' }], 'end_turn'),
    ]);
    const tools = await toAnthropicTools(toolkit, { include: { namespaces: ['fx'] } });
    const messages: MessageParam[] = [{ role: 'user', content: 'go' }];
    const first = await anthropic.messages.create({
      model: 'mock',
      max_tokens: 9,
      messages,
      tools,
    });
    const results = await runToolUses(toolkit, first, { tools, maxTurnOutputChars: 3_000 });
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: results },
    );
    await anthropic.messages.create({ model: 'mock', max_tokens: 9, messages, tools });
    const told = harness.server()?.requests[1]?.body.messages as { content: unknown }[];
    expect(told[2]?.content).toEqual(
      letters.map((c) => ({
        type: 'tool_result',
        tool_use_id: c,
        content: [
          {
            type: 'text',
            text: `${c.repeat(1_000)}\n[toolplane: 2000 of 3000 characters left out]`,
          },
        ],
      })),
    );
  });
});
