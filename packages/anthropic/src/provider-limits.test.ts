import { createToolkit, defineTool, imageContent, toolResult } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { runToolUses } from './run.js';
import { message, use, useAnthropicHarness } from './testing/scripted-model.js';
import { toAnthropicTools } from './tools.js';

// What the Messages API refuses in a tool_result, never sent: an error with no content, a text
// block of whitespace alone, an image of a type it does not take.

const NO_INPUT = { type: 'object', properties: {} } as const;
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
const toolkit = createToolkit({
  tools: [
    defineTool({
      name: 'silent_failure',
      description: 'Fails and says nothing.',
      input: NO_INPUT,
      run: () => toolResult([], { isError: true }),
    }),
    defineTool({
      name: 'blank',
      description: 'Prints a newline.',
      input: NO_INPUT,
      run: () => '\n',
    }),
    defineTool({
      name: 'chart',
      description: 'Draws an SVG.',
      input: NO_INPUT,
      run: () => toolResult([imageContent(SVG, 'image/svg+xml')]),
    }),
  ],
});

describe('tool results the Messages API takes', () => {
  it('says that a tool failed when it failed without content, and sends no blank text', async () => {
    const tools = await toAnthropicTools(toolkit);
    const [failed, blank] = await runToolUses(
      toolkit,
      [use('u1', 'builtin__silent_failure', {}), use('u2', 'builtin__blank', {})],
      { tools },
    );
    expect(failed?.is_error).toBe(true);
    expect(failed?.content).toEqual([
      { type: 'text', text: expect.stringMatching(/\S/) as string },
    ]);
    expect(blank?.is_error).toBeUndefined();
    expect(blank?.content).toBeUndefined();
  });

  it('sends an image of a type Anthropic does not take as a note', async () => {
    const tools = await toAnthropicTools(toolkit);
    const [chart] = await runToolUses(toolkit, [use('u3', 'builtin__chart', {})], { tools });
    expect(chart?.content).toEqual([
      { type: 'text', text: expect.stringContaining('image/svg+xml') as string },
    ]);
  });
});

describe('input schemas the Messages API takes', () => {
  const harness = useAnthropicHarness();
  let moved = 0;
  const moves = createToolkit({
    tools: [
      defineTool({
        name: 'move',
        description: 'Moves a file; `to` is needed unless it is a dry run.',
        input: {
          type: 'object',
          properties: {
            from: { type: 'string' },
            to: { type: 'string' },
            dry: { type: 'boolean' },
          },
          required: ['from'],
          if: { properties: { dry: { const: false } } },
          then: { required: ['to'] },
        },
        run: () => `moved ${String(++moved)}`,
      }),
    ],
  });

  it('sends a root if/then in the description, and the runner still holds a call to it', async () => {
    const anthropic = await harness.client([message([{ type: 'text', text: 'ok' }], 'end_turn')]);
    const tools = await toAnthropicTools(moves);
    await anthropic.messages.create({
      model: 'mock',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'go' }],
      tools,
    });
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[]]);
    const [missing, whole] = await runToolUses(
      moves,
      [
        use('u1', 'builtin__move', { from: 'a' }),
        use('u2', 'builtin__move', { from: 'a', to: 'b' }),
      ],
      { tools },
    );
    expect(missing?.is_error).toBe(true);
    expect(missing?.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^validation: /) as string },
    ]);
    expect(whole?.content).toEqual([{ type: 'text', text: 'moved 1' }]);
  });
});
