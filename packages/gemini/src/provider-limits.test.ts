import { createToolkit, defineTool, imageContent, toolResult } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { runFunctionCalls } from './run.js';
import { reply, useGeminiHarness } from './testing/scripted-model.js';
import { toGeminiTools } from './tools.js';

// An image of a type Gemini does not take as inline data goes as a note instead; an array
// schema without items (which Gemini refuses, failing the whole request) goes with some.

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
const toolkit = createToolkit({
  tools: [
    defineTool({
      name: 'chart',
      description: 'Draws an SVG.',
      input: { type: 'object', properties: {} },
      run: () => toolResult([imageContent(SVG, 'image/svg+xml')]),
    }),
  ],
});

describe('images Gemini does not take', () => {
  it('go as a note, not as inline data', async () => {
    const tools = await toGeminiTools(toolkit);
    const [part] = await runFunctionCalls(
      toolkit,
      [{ id: 'g1', name: 'builtin__chart', args: {} }],
      {
        tools,
      },
    );
    expect(part?.functionResponse?.parts).toBeUndefined();
    expect(JSON.stringify(part?.functionResponse?.response)).toContain('image/svg+xml');
  });
});

describe('array schemas Gemini takes', () => {
  const harness = useGeminiHarness();
  const lists = createToolkit({
    tools: [
      defineTool({
        name: 'tag',
        description: 'Tags things.',
        input: {
          type: 'object',
          properties: {
            tags: { type: 'array' },
            point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
          },
          required: ['tags'],
        },
        run: (args) => JSON.stringify(args),
      }),
    ],
  });

  it('declares an array without items and a tuple with items, and the runner holds the tuple', async () => {
    const ai = await harness.client([reply([{ text: 'ok' }])]);
    const tools = await toGeminiTools(lists);
    await ai.models.generateContent({
      model: 'mock',
      contents: [{ role: 'user', parts: [{ text: 'go' }] }],
      config: { tools },
    });
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[]]);
    const [whole, wrong] = await runFunctionCalls(
      lists,
      [
        { id: 'g1', name: 'builtin__tag', args: { tags: ['a', 1], point: [1, 2] } },
        { id: 'g2', name: 'builtin__tag', args: { tags: [], point: ['x'] } },
      ],
      { tools },
    );
    expect(whole?.functionResponse?.response).toEqual({ output: '{"tags":["a",1],"point":[1,2]}' });
    expect(wrong?.functionResponse?.response?.error).toMatch(/^validation: /);
  });
});
