import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { createLocalRegistry } from './local-registry.js';
import { isMcpToolResult, MCP_TOOL_RESULT, mcpToolResult } from './mcp-result.js';
import { createRunner } from './runner/runner.js';
import { rejection } from './testing/helpers.js';

const IMAGE = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } as const;

function setup(handler: (args: unknown) => unknown, extra: Partial<Tool> = {}) {
  const index = createIndex();
  const local = createLocalRegistry().register('t', handler);
  index.registerTool(
    { name: 't', namespace: 'demo', inputSchema: { type: 'object' }, ...extra },
    { kind: 'local', local: { name: 't' } },
  );
  return createRunner({ index, local });
}

describe('mcpToolResult', () => {
  it('marks a copy that isMcpToolResult recognises and JSON never shows', () => {
    const plain = { content: [IMAGE] };
    const marked = mcpToolResult(plain);
    expect(isMcpToolResult(marked)).toBe(true);
    expect(isMcpToolResult(plain)).toBe(false);
    expect(isMcpToolResult({ ...marked })).toBe(false);
    expect(JSON.parse(JSON.stringify(marked))).toEqual(plain);
    expect(MCP_TOOL_RESULT).toBe(Symbol.for('@toolplane/McpToolResult'));
  });

  it('rejects values that only look like a result', () => {
    for (const value of [null, undefined, 'x', 1, { content: [] }, []]) {
      expect(isMcpToolResult(value)).toBe(false);
    }
  });
});

describe('createRunner with a local handler answering an MCP result', () => {
  it('keeps the result as mcpResult, without its mark, and normalises structured', async () => {
    const runner = setup(() => mcpToolResult({ content: [IMAGE] }));
    const result = await runner.run('demo:t', {});
    expect(result.mcpResult).toEqual({ content: [IMAGE] });
    expect(isMcpToolResult(result.mcpResult)).toBe(false);
    expect(result.structured).toEqual(IMAGE);
  });

  it('validates structuredContent against the output schema', async () => {
    const outputSchema = {
      type: 'object' as const,
      properties: { n: { type: 'number' } },
      required: ['n'],
    };
    const good = setup(
      () => mcpToolResult({ content: [{ type: 'text', text: '1' }], structuredContent: { n: 1 } }),
      { outputSchema },
    );
    expect((await good.run('demo:t', {})).structured).toEqual({ n: 1 });
    const bad = setup(() => mcpToolResult({ content: [], structuredContent: { n: 'one' } }), {
      outputSchema,
    });
    const error = await rejection(bad.run('demo:t', {}));
    expect(error.code).toBe('output_validation');
  });

  it('fails with execution, keeping the result as cause, when isError is true', async () => {
    const failed = { isError: true, content: [{ type: 'text' as const, text: 'disk full' }] };
    const runner = setup(() => Promise.resolve(mcpToolResult(failed)));
    const error = await rejection(runner.run('demo:t', {}));
    expect(error.code).toBe('execution');
    expect(error.message).toBe('disk full');
    expect(error.cause).toEqual(failed);
  });

  it('leaves a plain value shaped like a result a plain value', async () => {
    const runner = setup(() => ({ content: [IMAGE] }));
    const result = await runner.run('demo:t', {});
    expect(result.mcpResult).toBeUndefined();
    expect(result.structured).toEqual({ content: [IMAGE] });
  });
});
