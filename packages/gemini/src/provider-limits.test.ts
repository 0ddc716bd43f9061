import { createToolkit, defineTool, imageContent, toolResult } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { runFunctionCalls } from './run.js';
import { toGeminiTools } from './tools.js';

// An image of a type Gemini does not take as inline data goes as a note instead.

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
