import { ToolMessage } from '@langchain/core/messages';
import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import type { ToolSource } from '@toolplane/adapter-kit';
import { describe, expect, it } from 'vitest';
import type { ToolplaneArtifact } from './results.js';
import { ScriptedChatModel, runToolLoop } from './testing/scripted-model.js';
import { toLangChainTools } from './tools.js';

function catalogue(): ToolSource {
  const index = createIndex();
  const local = createLocalRegistry()
    .register('add', (args) => {
      const { a, b } = args as { a: number; b: number };
      return { sum: a + b };
    })
    .register('drop', () => 'dropped');
  const numbers: Tool['inputSchema'] = {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  };
  index.registerTool(
    { namespace: 'math', name: 'add', description: 'Adds two numbers.', inputSchema: numbers },
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
  for (let i = 0; i < 50; i++) {
    index.registerTool(
      {
        namespace: 'filler',
        name: `tool_${String(i)}`,
        description: `Filler tool number ${String(i)} about weather.`,
        inputSchema: { type: 'object' },
      },
      { kind: 'local', local: { name: 'drop' } },
    );
  }
  return { index, runner: createRunner({ index, local }) };
}

describe("toLangChainTools with mode: 'search'", () => {
  it('exposes three tools the model uses to search, describe and call, within the filter', async () => {
    const source = catalogue();
    const tools = await toLangChainTools(source, {
      mode: 'search',
      exclude: { tags: ['admin'] },
    });
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's', name: 'search_tools', args: { query: 'add numbers', limit: 5 } }] },
      { toolCalls: [{ id: 'd', name: 'describe_tool', args: { id: 'math:add' } }] },
      {
        toolCalls: [
          { id: 'c', name: 'call_tool', args: { id: 'math:add', arguments: { a: 2, b: 3 } } },
          { id: 'x', name: 'call_tool', args: { id: 'admin:drop_numbers' } },
          { id: 'v', name: 'call_tool', args: { id: 'math:add', arguments: { a: 'two' } } },
        ],
      },
      { text: '5' },
    ]);
    const messages = await runToolLoop(model, tools, 'add 2 and 3');
    const told = messages.filter((m) => ToolMessage.isInstance(m));
    const artifact = (i: number) => told[i]?.artifact as ToolplaneArtifact;

    const found = artifact(0).structuredContent as { results: { id: string }[] };
    expect(found.results.map((result) => result.id)).toContain('math:add');
    expect(found.results.map((result) => result.id)).not.toContain('admin:drop_numbers');
    expect(JSON.parse(told[0]?.content as string)).toEqual(found);

    expect(artifact(1).structuredContent).toMatchObject({
      id: 'math:add',
      name: 'add',
      inputSchema: { required: ['a', 'b'] },
    });

    expect(told[2]).toMatchObject({ status: 'success', content: '{"sum":5}' });
    expect(artifact(2).toolId).toBe('math:add');
    // An excluded tool is as unknown as a missing one.
    expect(told[3]?.status).toBe('error');
    expect(artifact(3).code).toBe('not_found');
    expect(told[4]?.status).toBe('error');
    expect(artifact(4).code).toBe('validation');
  });

  it('answers bad search arguments as errors the model reads', async () => {
    const [search, describeTool] = await toLangChainTools(catalogue(), { mode: 'search' });
    const call = (args: Record<string, unknown>) =>
      ({ id: 'i', name: 'search_tools', args, type: 'tool_call' }) as const;
    const badLimit = await search?.invoke(call({ query: 'x', limit: 1000 }));
    expect((badLimit?.artifact as ToolplaneArtifact).code).toBe('invalid_argument');
    const noQuery = await search?.invoke(call({}));
    expect(noQuery?.status).toBe('error');
    const unknown = await describeTool?.invoke({
      id: 'u',
      name: 'describe_tool',
      args: { id: 'no such id' },
      type: 'tool_call',
    });
    expect((unknown?.artifact as ToolplaneArtifact).code).toBe('not_found');
  });

  it('pages through search results with the cursor', async () => {
    const [search] = await toLangChainTools(catalogue(), { mode: 'search' });
    const page = async (args: Record<string, unknown>) =>
      (
        (await search?.invoke({ id: 'p', name: 'search_tools', args, type: 'tool_call' }))
          ?.artifact as ToolplaneArtifact
      ).structuredContent as { results: { id: string }[]; nextCursor?: string };
    const first = await page({ query: 'weather', limit: 20 });
    expect(first.results).toHaveLength(20);
    expect(first.nextCursor).toBeDefined();
    const second = await page({ query: 'weather', limit: 20, cursor: first.nextCursor });
    const ids = new Set([...first.results, ...second.results].map((result) => result.id));
    expect(ids.size).toBe(40);
  });
});
