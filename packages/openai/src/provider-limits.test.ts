import { createToolkit, defineTool, imageContent, toolResult } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { runToolCalls } from './run.js';
import { openAIToolReport, toOpenAIResponsesTools, toOpenAITools } from './tools.js';

// An image of a type OpenAI does not take (it takes PNG, JPEG, GIF and WebP) fails the whole
// request: it goes as a note instead, in Chat Completions and in Responses.

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
const PNG = 'iVBORw0KGgo=';
const toolkit = createToolkit({
  tools: [
    defineTool({
      name: 'chart',
      description: 'Draws an SVG and a PNG.',
      input: { type: 'object', properties: {} },
      run: () => toolResult([imageContent(SVG, 'image/svg+xml'), imageContent(PNG, 'image/png')]),
    }),
  ],
});

describe('function descriptions past 1024 characters', () => {
  it('are cut at a word, and the report says so', async () => {
    const long = createToolkit({
      tools: [
        defineTool({
          name: 'wordy',
          description: 'word '.repeat(400),
          input: { type: 'object', properties: {} },
          run: () => 'ok',
        }),
      ],
    });
    for (const tools of [await toOpenAITools(long), await toOpenAIResponsesTools(long)]) {
      const [tool] = tools;
      const description =
        tool === undefined ? '' : 'function' in tool ? tool.function.description : tool.description;
      expect(description?.length).toBeLessThanOrEqual(1024);
      expect(description?.endsWith('word…')).toBe(true);
      expect(openAIToolReport(tools)[0]?.notes.join()).toMatch(/description cut/);
    }
  });
});

describe("enums past strict mode's bounds", () => {
  it('send the tool with strict: false, saying why', async () => {
    const enumTool = (name: string, count: number, width: number) =>
      defineTool({
        name,
        description: 'Picks one.',
        input: {
          type: 'object',
          properties: {
            pick: {
              type: 'string',
              enum: Array.from({ length: count }, (_, i) => String(i).padStart(width, '0')),
            },
          },
          required: ['pick'],
        },
        run: () => 'ok',
      });
    const source = createToolkit({
      tools: [enumTool('many', 1_200, 4), enumTool('long', 300, 60), enumTool('fine', 200, 4)],
    });
    const report = openAIToolReport(await toOpenAITools(source));
    const byName = new Map(report.map((tool) => [tool.id, tool]));
    expect(byName.get('builtin:many')).toMatchObject({
      strict: false,
      reason: expect.stringMatching(/enum/) as string,
    });
    expect(byName.get('builtin:long')).toMatchObject({
      strict: false,
      reason: expect.stringMatching(/enum/) as string,
    });
    expect(byName.get('builtin:fine')?.strict).toBe(true);
  });
});

describe('images OpenAI does not take', () => {
  it('go as a note in Chat Completions, the PNG still as an image', async () => {
    const tools = await toOpenAITools(toolkit);
    const messages = await runToolCalls(
      toolkit,
      {
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'builtin__chart', arguments: '{}' } },
        ],
      },
      { tools },
    );
    const text = JSON.stringify(messages);
    expect(text).not.toContain('data:image/svg+xml');
    expect(text).toContain('data:image/png');
    expect(text).toContain('image/svg+xml');
  });

  it('go as a note in Responses, the PNG still as an input_image', async () => {
    const tools = await toOpenAIResponsesTools(toolkit);
    const call = { type: 'function_call', call_id: 'c1', name: 'builtin__chart', arguments: '{}' };
    const items = await runToolCalls(toolkit, { output: [call] }, { tools });
    const text = JSON.stringify(items);
    expect(text).not.toContain('data:image/svg+xml');
    expect(text).toContain('data:image/png');
    expect(text).toContain('image/svg+xml');
  });
});
