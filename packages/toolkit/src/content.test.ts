import { ToolError } from '@toolplane/toolmodel';
import { errorCodeOf } from '@toolplane/toolmodel/testing';
import { isMcpToolResult } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  audioContent,
  embeddedResource,
  imageContent,
  resourceLink,
  textContent,
  toolResult,
} from './content.js';
import { defineTool } from './define-tool.js';
import { textResource } from './resources/resources.js';
import { createToolkit } from './toolkit/toolkit.js';

const PNG = 'iVBORw0KGgo=';

describe('content helpers', () => {
  it('build MCP blocks from bytes, base64 and resources', () => {
    expect(imageContent(new Uint8Array([137, 80, 78, 71]), 'image/png')).toEqual({
      type: 'image',
      data: 'iVBORw==',
      mimeType: 'image/png',
    });
    expect(audioContent('UklGRg==', 'audio/wav')).toEqual({
      type: 'audio',
      data: 'UklGRg==',
      mimeType: 'audio/wav',
    });
    const notes = textResource('notes', 'remember', { uri: 'memo://notes' });
    expect(embeddedResource(notes)).toEqual({
      type: 'resource',
      resource: { uri: 'memo://notes', mimeType: 'text/plain', text: 'remember' },
    });
    expect(resourceLink(notes)).toEqual({
      type: 'resource_link',
      uri: 'memo://notes',
      name: 'notes',
      mimeType: 'text/plain',
    });
    expect(textContent('hi')).toEqual({ type: 'text', text: 'hi' });
  });

  it('refuse data that is not base64, MIME types without a subtype and links without a URI', () => {
    expect(errorCodeOf(() => imageContent('not base64!', 'image/png'))).toBe('invalid_argument');
    expect(errorCodeOf(() => imageContent(PNG, 'png'))).toBe('invalid_argument');
    expect(errorCodeOf(() => audioContent(42 as unknown as string, 'audio/wav'))).toBe(
      'invalid_argument',
    );
    expect(errorCodeOf(() => resourceLink({ uri: 'no scheme', name: 'x' }))).toBe(
      'invalid_argument',
    );
    expect(errorCodeOf(() => resourceLink({ uri: 'memo://x', name: '' }))).toBe('invalid_argument');
    expect(errorCodeOf(() => textContent(1 as unknown as string))).toBe('invalid_argument');
  });

  it('toolResult marks a valid result and refuses an invalid one', () => {
    const result = toolResult([textContent('a'), imageContent(PNG, 'image/png')], {
      structured: { n: 1 },
      meta: { trace: 'x' },
    });
    expect(isMcpToolResult(result)).toBe(true);
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
      structuredContent: { n: 1 },
      _meta: { trace: 'x' },
    });
    const bogus = { type: 'video', url: 'x' } as unknown as Parameters<typeof toolResult>[0];
    expect(errorCodeOf(() => toolResult(bogus))).toBe('invalid_argument');
  });
});

describe('a builtin answering with toolResult', () => {
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'chart',
        description: 'Draws a chart.',
        input: z.object({}),
        run: () => toolResult([textContent('a chart'), imageContent(PNG, 'image/png')]),
      }),
      defineTool({
        name: 'weather',
        description: 'Reports the weather.',
        input: z.object({ fail: z.boolean().default(false) }),
        output: z.object({ celsius: z.number() }),
        run: ({ fail }) =>
          toolResult(textContent('20 °C'), {
            structured: fail ? { celsius: 'warm' } : { celsius: 20 },
          }),
      }),
      defineTool({
        name: 'broken',
        description: 'Fails for the model to see.',
        input: z.object({}),
        run: () => toolResult(textContent('the disk is full'), { isError: true }),
      }),
    ],
  });

  it('reaches callTool as the run mcpResult, with structured normalised from it', async () => {
    const run = await toolkit.callTool('builtin:chart');
    expect(run.mcpResult).toEqual({
      content: [
        { type: 'text', text: 'a chart' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
    });
    expect(run.structured).toEqual([
      'a chart',
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
  });

  it('has its structured content validated against the output schema', async () => {
    expect((await toolkit.callTool('builtin:weather')).structured).toEqual({ celsius: 20 });
    await expect(toolkit.callTool('builtin:weather', { fail: true })).rejects.toMatchObject({
      code: 'output_validation',
    });
  });

  it('fails the call with execution when isError is set, keeping the result as cause', async () => {
    const error: unknown = await toolkit.callTool('builtin:broken').catch((e: unknown) => e);
    expect(ToolError.isInstance(error) && error.code).toBe('execution');
    expect((error as ToolError).message).toBe('the disk is full');
    expect((error as ToolError).cause).toMatchObject({ isError: true });
  });
});
