import type { JsonSchema } from '../tool.js';

/** A schema shaped like a typical MCP tool's input, for tests and benchmarks. */
export const TYPICAL_TOOL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    count: { type: 'integer', minimum: 0 },
    state: { enum: ['open', 'closed'] },
    labels: { type: 'array', items: { type: 'string' } },
    owner: {
      type: 'object',
      properties: { login: { type: 'string' } },
      required: ['login'],
    },
    draft: { type: 'boolean' },
  },
  required: ['title'],
  additionalProperties: false,
};
