/**
 * Quickstart: define two tools, send them over the wire as MCP JSON and back, then validate
 * good and bad arguments against their schemas. The example checks its own output and exits
 * non-zero on any mismatch, so CI runs it as a test.
 */
import assert from 'node:assert/strict';
import {
  createValidator,
  fromMcpJson,
  parseToolId,
  toMcpJson,
  ToolError,
  toolId,
  validateTool,
  type Tool,
} from '@toolplane/toolmodel';

const tools: Tool[] = [
  {
    namespace: 'weather',
    name: 'get_forecast',
    title: 'Get forecast',
    description: 'Daily weather forecast for a city.',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1 },
        days: { type: 'integer', minimum: 1, maximum: 14 },
        units: { enum: ['metric', 'imperial'] },
      },
      required: ['city'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, highs: { type: 'array', items: { type: 'number' } } },
      required: ['city', 'highs'],
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    tags: ['weather', 'read-only'],
  },
  {
    namespace: 'notes',
    name: 'add_note',
    description: 'Append a note to the notebook.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 2000 } },
      required: ['text'],
    },
    annotations: { destructiveHint: false, idempotentHint: false },
  },
];

const lines: string[] = [];
const say = (line: string): void => {
  lines.push(line);
  console.log(line);
};

// 1. Every tool is valid and has a canonical ID.
for (const tool of tools) {
  validateTool(tool);
  say(`defined ${toolId(tool)}`);
}

// 2. The wire form is plain MCP (no toolplane fields); parsing it back restores the tool.
for (const tool of tools) {
  const wire = JSON.parse(JSON.stringify(toMcpJson(tool))) as unknown;
  const back = fromMcpJson(wire, { namespace: tool.namespace, tags: tool.tags });
  assert.deepEqual(back, tool);
  say(`round-tripped ${toolId(back)} through MCP JSON`);
}

// 3. Arguments are validated against the input schema; failures say where and why.
const validator = createValidator();
const [forecast] = tools as [Tool, Tool];
const good = validator.validateInput(forecast, { city: 'Lisbon', days: 3 });
say(`valid arguments accepted: ${String(good.valid)}`);
const bad = validator.validateInput(forecast, { city: '', days: 30, extra: true });
if (bad.valid) throw new Error('bad arguments were accepted');
for (const error of bad.errors) say(`  rejected ${error.path || '(root)'}: ${error.keyword}`);

// 4. Malformed IDs are typed errors, never silent.
try {
  parseToolId('weather:get forecast');
} catch (error) {
  if (!ToolError.isInstance(error)) throw error;
  say(`malformed ID rejected with code ${error.code}`);
}

assert.deepEqual(lines.slice(0, 5), [
  'defined weather:get_forecast',
  'defined notes:add_note',
  'round-tripped weather:get_forecast through MCP JSON',
  'round-tripped notes:add_note through MCP JSON',
  'valid arguments accepted: true',
]);
assert.ok(lines.some((line) => line.includes('/city') && line.includes('minLength')));
assert.ok(lines.some((line) => line.includes('/days') && line.includes('maximum')));
assert.ok(lines.some((line) => line.includes('additionalProperties')));
assert.equal(lines.at(-1), 'malformed ID rejected with code invalid_tool_id');
console.log('quickstart: all checks passed');
