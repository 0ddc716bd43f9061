import { createIndex } from '@toolplane/toolindex';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import {
  callTool,
  describeTool,
  isExposed,
  prepareCall,
  SEARCH_MODE_TOOLS,
  searchTools,
} from './search.js';
import type { ToolSource } from './source.js';

function catalogue(): ToolSource {
  const index = createIndex();
  const local = createLocalRegistry()
    .register('add', (args) => {
      const { a, b } = args as { a: number; b: number };
      return { sum: a + b };
    })
    .register('drop', () => 'dropped');
  index.registerTool(
    {
      namespace: 'math',
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    { kind: 'local', local: { name: 'add' } },
  );
  index.registerTool(
    {
      namespace: 'admin',
      name: 'drop_numbers',
      description: 'Drops every stored number.',
      tags: ['admin'],
      inputSchema: { type: 'object' },
    },
    { kind: 'local', local: { name: 'drop' } },
  );
  for (let i = 0; i < 30; i++) {
    index.registerTool(
      {
        namespace: 'filler',
        name: `tool_${String(i)}`,
        description: `Filler tool number ${String(i)} about numbers.`,
        inputSchema: { type: 'object' },
      },
      { kind: 'local', local: { name: 'drop' } },
    );
  }
  return { index, runner: createRunner({ index, local }) };
}

const source = catalogue();
const noAdmin = { exclude: { tags: ['admin'] } };

describe('isExposed', () => {
  it('holds for a tool the filter lets through, never for a filtered, unknown or malformed ID', () => {
    expect(isExposed(source, noAdmin, 'math:add')).toBe(true);
    expect(isExposed(source, noAdmin, 'admin:drop_numbers')).toBe(false);
    expect(isExposed(source, {}, 'admin:drop_numbers')).toBe(true);
    for (const id of ['math:nope', '', ':::', '__proto__', 'constructor', 42, null, { id: 1 }]) {
      expect(isExposed(source, noAdmin, id)).toBe(false);
    }
  });
});

describe('searchTools', () => {
  it('returns summaries of the exposed tools only, paged with a cursor', async () => {
    const page = (await searchTools(source, noAdmin, { query: 'numbers', limit: 5 })) as {
      results: { id: string; description: string; tags: string[] }[];
      nextCursor?: string;
    };
    expect(page.results.length).toBeGreaterThan(0);
    expect(page.results.map((r) => r.id)).not.toContain('admin:drop_numbers');
    expect(page.results[0]).not.toHaveProperty('inputSchema');
    expect(page.nextCursor).toBeTypeOf('string');
    const second = await searchTools(source, noAdmin, {
      query: 'numbers',
      limit: 5,
      cursor: page.nextCursor,
    });
    const ids = (second as { results: { id: string }[] }).results.map((r) => r.id);
    expect(ids.some((id) => page.results.some((r) => r.id === id))).toBe(false);
  });

  it('refuses bad input with invalid_argument', async () => {
    for (const input of [
      {},
      { query: 3 },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 101 },
      { query: 'x', limit: 1.5 },
      { query: 'x', limit: '5' },
      { query: 'x', cursor: 7 },
    ]) {
      await expect(searchTools(source, noAdmin, input)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });

  it('throws cancelled when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      searchTools(source, noAdmin, { query: 'x' }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('describeTool', () => {
  it("gives an exposed tool's full definition and not_found for any other ID", () => {
    expect(describeTool(source, noAdmin, { id: 'math:add' })).toMatchObject({
      id: 'math:add',
      name: 'add',
      inputSchema: { required: ['a', 'b'] },
    });
    for (const id of ['admin:drop_numbers', 'math:nope']) {
      expect(() => describeTool(source, noAdmin, { id })).toThrow(
        expect.objectContaining({ code: 'not_found' }),
      );
    }
    // No ID at all is the caller's mistake, not a missing tool.
    for (const id of [undefined, 42, null]) {
      expect(() => describeTool(source, noAdmin, { id })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});

describe('prepareCall and callTool', () => {
  it('runs an exposed tool, the runner validating its arguments', async () => {
    const run = await callTool(source, noAdmin, { id: 'math:add', arguments: { a: 2, b: 3 } });
    expect(run.structured).toEqual({ sum: 5 });
    await expect(
      callTool(source, noAdmin, { id: 'math:add', arguments: { a: 'two', b: 3 } }),
    ).rejects.toMatchObject({ code: 'validation' });
    await expect(callTool(source, noAdmin, { id: 'admin:drop_numbers' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses filtered tools and arguments that are not an object, before any call', () => {
    expect(() => prepareCall(source, noAdmin, { id: 'admin:drop_numbers' })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    for (const given of [[1], 'text', null, 5, '[1]', 'null']) {
      expect(() => prepareCall(source, noAdmin, { id: 'math:add', arguments: given })).toThrow(
        expect.objectContaining({ code: 'invalid_argument', toolId: 'math:add' }),
      );
    }
    expect(prepareCall(source, noAdmin, { id: 'math:add' })).toEqual({ id: 'math:add', args: {} });
    // JSON text of an object, as the provider adapters ask for it and a model may send to any.
    expect(prepareCall(source, noAdmin, { id: 'math:add', arguments: '{"a":2,"b":3}' })).toEqual({
      id: 'math:add',
      args: { a: 2, b: 3 },
    });
  });
});

describe('SEARCH_MODE_TOOLS', () => {
  it('describes the three tools with object input schemas naming their required fields', () => {
    expect(SEARCH_MODE_TOOLS.map((tool) => [tool.name, tool.inputSchema.required])).toEqual([
      ['search_tools', ['query']],
      ['describe_tool', ['id']],
      ['call_tool', ['id']],
    ]);
  });
});

describe('search mode over a real MCP server (stdio)', () => {
  const toolkit = useFixtureToolkit();

  it('finds, describes and calls an upstream tool, keeping its structured result', async () => {
    const filter = { include: { namespaces: ['fx'] } };
    const found = await searchTools(toolkit, filter, { query: 'adds two numbers' });
    const ids = (found as { results: { id: string }[] }).results.map((r) => r.id);
    expect(ids).toContain('fx:add');
    expect(describeTool(toolkit, filter, { id: 'fx:add' })).toMatchObject({
      inputSchema: { required: ['a', 'b'] },
    });
    const run = await callTool(toolkit, filter, { id: 'fx:add', arguments: { a: 2, b: 40 } });
    expect(run.mcpResult).toMatchObject({
      content: [{ type: 'text', text: '42' }],
      structuredContent: { sum: 42 },
    });
  });
});
