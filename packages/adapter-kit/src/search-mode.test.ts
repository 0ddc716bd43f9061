import { createIndex } from '@toolplane/toolindex';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { exposeTools } from './exposed.js';
import { checkSchema } from './schema-check.js';
import type { SchemaTarget } from './schema-rules.js';
import { outcomeText } from './outcomes.js';
import { runCalls } from './turn.js';

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
    description: 'Adds two numbers together.',
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
    name: 'drop',
    description: 'Drops every table of the database.',
    inputSchema: { type: 'object', properties: {} },
  },
  { kind: 'local', local: { name: 'drop' } },
);
const source = { index, runner: createRunner({ index, local }) };
const TARGETS: SchemaTarget[] = ['openai-strict', 'anthropic', 'gemini'];

describe('search mode', () => {
  it.each(TARGETS)('exposes three tools whose schemas %s accepts', (target) => {
    const { tools } = exposeTools(source, target, { mode: 'search' });
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    for (const tool of tools)
      expect(checkSchema(tool.schema.schema, tool.schema.target)).toEqual([]);
    // call_tool takes its arguments as JSON text, which every provider's strict form can say.
    expect(tools.every((tool) => tool.schema.strict === (target === 'openai-strict'))).toBe(true);
  });

  it('searches, describes and calls through the filter, and hides what it excludes', async () => {
    const { resolve } = exposeTools(source, 'openai-strict', {
      mode: 'search',
      exclude: { namespaces: ['admin'] },
    });
    const outcomes = await runCalls(
      source,
      [
        {
          callId: 's',
          name: 'search_tools',
          arguments: '{"query":"add numbers","limit":null,"cursor":null}',
        },
        { callId: 'd', name: 'describe_tool', arguments: '{"id":"math:add"}' },
        {
          callId: 'c',
          name: 'call_tool',
          arguments: '{"id":"math:add","arguments":"{\\"a\\":1,\\"b\\":2}"}',
        },
        { callId: 'x', name: 'call_tool', arguments: '{"id":"admin:drop","arguments":null}' },
        { callId: 'y', name: 'search_tools', arguments: '{"query":"drop tables"}' },
        { callId: 'z', name: 'call_tool', arguments: '{"id":"math:add","arguments":"{oops"}' },
      ],
      resolve,
    );
    expect(outcomes[0]?.structured).toMatchObject({ results: [{ id: 'math:add' }] });
    expect(outcomes[1]?.structured).toMatchObject({
      id: 'math:add',
      inputSchema: { required: ['a', 'b'] },
    });
    expect(outcomes[2]?.structured).toEqual({ sum: 3 });
    expect(outcomes[3]).toMatchObject({ isError: true, code: 'not_found' });
    expect(outcomes[4]?.structured).toEqual({ results: [] });
    expect(outcomes[5]).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(outcomeText(outcomes[3]!)).toContain('search_tools finds IDs');
  });
});
