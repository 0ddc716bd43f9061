import { ToolSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  areNormalTags,
  fromMcpJson,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  normalizeTags,
  toMcpJson,
  validateTool,
  type Tool,
} from './tool.js';
import { errorCodeOf } from './testing/error-code.js';

const fullTool: Tool = {
  name: 'create_issue',
  title: 'Create issue',
  description: 'Open a new issue in a repository.',
  inputSchema: {
    type: 'object',
    properties: { repo: { type: 'string' }, title: { type: 'string' } },
    required: ['repo', 'title'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { number: { type: 'integer' } } },
  annotations: { title: 'Create issue', readOnlyHint: false, idempotentHint: false },
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  execution: { taskSupport: 'optional' },
  _meta: { 'example.com/owner': 'platform' },
  namespace: 'github',
  version: '1.0.0',
  tags: ['issues', 'write'],
};

describe('validateTool', () => {
  it('accepts a tool with every MCP field', () => {
    expect(() => {
      validateTool(fullTool);
    }).not.toThrow();
  });

  it.each([
    ['no name', { inputSchema: { type: 'object' } }],
    ['a name with spaces', { name: 'two words', inputSchema: { type: 'object' } }],
    ['a 129-character name', { name: 'n'.repeat(129), inputSchema: { type: 'object' } }],
    ['a namespace with a dot', { name: 'x', namespace: 'a.b', inputSchema: { type: 'object' } }],
    ['a namespace with a colon', { name: 'x', namespace: 'a:b', inputSchema: { type: 'object' } }],
    ['a missing inputSchema', { name: 'x' }],
    ['a null inputSchema', { name: 'x', inputSchema: null }],
    ['an array inputSchema', { name: 'x', inputSchema: [] }],
    ['a non-object inputSchema type', { name: 'x', inputSchema: { type: 'string' } }],
    [
      'a non-object outputSchema',
      { name: 'x', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } },
    ],
    ['a numeric description', { name: 'x', inputSchema: { type: 'object' }, description: 5 }],
    ['non-string tags', { name: 'x', inputSchema: { type: 'object' }, tags: [1] }],
    ['null', null],
    ['an array', []],
  ])('throws invalid_tool for %s', (_label, tool) => {
    expect(
      errorCodeOf(() => {
        validateTool(tool);
      }),
    ).toBe('invalid_tool');
  });

  it('lists the offending characters of a bad name', () => {
    expect(() => {
      validateTool({ name: 'a b/c', inputSchema: { type: 'object' } });
    }).toThrow(/" ", "\/"/);
  });
});

describe('normalizeTags', () => {
  it('lower-cases, trims, joins inner whitespace and de-duplicates in order', () => {
    expect(normalizeTags(['  Git Hub ', 'ISSUES', 'git   hub', '', '  ', 'issues'])).toEqual([
      'git-hub',
      'issues',
    ]);
  });

  it('bounds tag length and count', () => {
    const many = Array.from({ length: 100 }, (_, i) => `tag${i}`);
    expect(normalizeTags(many)).toHaveLength(MAX_TAGS);
    expect(normalizeTags(['x'.repeat(500)])[0]).toHaveLength(MAX_TAG_LENGTH);
  });

  it('returns an empty list for undefined and rejects non-strings', () => {
    expect(normalizeTags(undefined)).toEqual([]);
    expect(errorCodeOf(() => normalizeTags([42] as unknown as string[]))).toBe('invalid_tool');
  });
});

describe('areNormalTags', () => {
  it('says true only for tags normalizeTags gives back unchanged', () => {
    const tag = fc.oneof(
      fc.string({ maxLength: 70 }),
      fc.stringMatching(/^[a-z0-9._-]{1,8}$/),
      fc.constantFrom('git-hub', 'Issues', ' x', 'a b', 'ä', '\u00a0', 'x'.repeat(65)),
    );
    fc.assert(
      fc.property(fc.array(tag, { maxLength: 40 }), (tags) => {
        if (areNormalTags(tags)) expect(normalizeTags(tags)).toEqual(tags);
      }),
    );
  });

  it('says true for tags that are already normal', () => {
    expect(areNormalTags([])).toBe(true);
    expect(areNormalTags(['git-hub', 'issues', 'v1.2_x'])).toBe(true);
    expect(areNormalTags(['Git'])).toBe(false);
    expect(areNormalTags(['a', 'a'])).toBe(false);
    expect(areNormalTags(['a b'])).toBe(false);
  });
});

describe('toMcpJson / fromMcpJson', () => {
  it('strips toolplane fields and keeps every MCP field', () => {
    const json = toMcpJson(fullTool);
    expect(json).not.toHaveProperty('namespace');
    expect(json).not.toHaveProperty('version');
    expect(json).not.toHaveProperty('tags');
    expect(ToolSchema.parse(json)).toEqual(json);
    expect(json).toEqual({
      ...fullTool,
      namespace: undefined,
      version: undefined,
      tags: undefined,
    });
  });

  it('round-trips a full tool exactly', () => {
    const back = fromMcpJson(toMcpJson(fullTool), {
      namespace: 'github',
      version: '1.0.0',
      tags: ['issues', 'write'],
    });
    expect(back).toEqual(fullTool);
  });

  it('normalises the tags it attaches', () => {
    expect(fromMcpJson(toMcpJson(fullTool), { tags: [' Write ', 'write'] }).tags).toEqual([
      'write',
    ]);
  });

  it('throws invalid_tool for JSON that is not an MCP tool', () => {
    expect(errorCodeOf(() => fromMcpJson({ name: 'x' }))).toBe('invalid_tool');
    expect(errorCodeOf(() => fromMcpJson('tool'))).toBe('invalid_tool');
    expect(
      errorCodeOf(() =>
        fromMcpJson({ name: 'x', inputSchema: { type: 'object' }, annotations: 'no' }),
      ),
    ).toBe('invalid_tool');
  });

  it('throws invalid_tool when the namespace breaks the rule', () => {
    expect(errorCodeOf(() => fromMcpJson(toMcpJson(fullTool), { namespace: 'bad.ns' }))).toBe(
      'invalid_tool',
    );
  });

  it('does not let a __proto__ key pollute prototypes', () => {
    const hostile = JSON.parse(
      '{"name":"x","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}},"__proto__":{"polluted":true}}',
    ) as unknown;
    const tool = fromMcpJson(hostile);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(tool)).toBe(Object.prototype);
  });
});
