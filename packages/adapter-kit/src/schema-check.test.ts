import { describe, expect, it } from 'vitest';
import { checkSchema, checkToolName } from './schema-check.js';

const ok = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
const strictOk = { ...ok, additionalProperties: false };

describe('checkSchema', () => {
  it('accepts a plain object schema for every provider', () => {
    expect(checkSchema(ok, 'openai')).toEqual([]);
    expect(checkSchema(ok, 'anthropic')).toEqual([]);
    expect(checkSchema(strictOk, 'openai-strict')).toEqual([]);
    expect(
      checkSchema({ ...ok, type: 'OBJECT', properties: { a: { type: 'STRING' } } }, 'gemini'),
    ).toEqual([]);
  });

  it('rejects a root that is not an object, or a combinator at the root', () => {
    expect(checkSchema({ type: 'string' }, 'anthropic')).toEqual([
      '/: the root is not an object schema',
    ]);
    expect(checkSchema({ ...ok, anyOf: [ok] }, 'anthropic')).toContain('/: anyOf at the root');
    expect(checkSchema([], 'openai')).toHaveLength(1);
  });

  it('rejects $ref and $defs everywhere', () => {
    const problems = checkSchema(
      { ...ok, $defs: { x: ok }, properties: { a: { $ref: '#/$defs/x' } } },
      'anthropic',
    );
    expect(problems).toEqual([
      '/: keyword $defs is not supported',
      '/properties/a: keyword $ref is not supported',
    ]);
  });

  it('holds strict objects to closed, all-required, typed schemas', () => {
    expect(checkSchema(ok, 'openai-strict')).toEqual([
      '/: strict objects need additionalProperties: false',
    ]);
    expect(checkSchema({ ...strictOk, required: [] }, 'openai-strict')).toEqual([
      '/: strict objects must require every property',
    ]);
    expect(
      checkSchema({ ...strictOk, properties: { a: { description: 'any' } } }, 'openai-strict'),
    ).toEqual(['/properties/a: strict mode needs a type']);
    expect(
      checkSchema(
        { ...strictOk, properties: { a: { type: 'string', minLength: 1 } } },
        'openai-strict',
      ),
    ).toEqual(['/properties/a: keyword minLength is not supported']);
    expect(
      checkSchema(
        { ...strictOk, properties: { a: { type: 'string', format: 'uri' } } },
        'openai-strict',
      ),
    ).toEqual(['/properties/a: format uri is not supported']);
    expect(
      checkSchema({ ...strictOk, properties: { a: { type: 'array' } } }, 'openai-strict'),
    ).toEqual(['/properties/a: strict arrays need items']);
  });

  it('holds Gemini to one upper-case type, string enums and counts as digit strings', () => {
    const gemini = (a: unknown) => checkSchema({ type: 'OBJECT', properties: { a } }, 'gemini');
    expect(gemini({ type: 'string' })).toHaveLength(1);
    expect(gemini({ type: ['STRING', 'NULL'] })).toHaveLength(1);
    expect(gemini({ type: 'INTEGER', enum: [1, 2] })).toEqual([
      '/properties/a: enum values must be strings',
      '/properties/a: an enum needs type STRING',
    ]);
    expect(gemini({ type: 'STRING', minLength: 2 })).toEqual([
      '/properties/a: minLength must be a digit string',
    ]);
    expect(gemini({ type: 'STRING', minLength: '2', nullable: true })).toEqual([]);
    expect(gemini({ type: 'OBJECT', additionalProperties: false })).toEqual([
      '/properties/a: keyword additionalProperties is not supported',
      '/properties/a: an OBJECT needs properties',
    ]);
    expect(gemini({ type: 'STRING', oneOf: [{ type: 'STRING' }] })).toEqual([
      '/properties/a: keyword oneOf is not supported',
    ]);
    expect(gemini({ type: 'ARRAY' })).toEqual(['/properties/a: an ARRAY needs items']);
    expect(gemini({ type: 'ARRAY', items: { type: 'STRING' } })).toEqual([]);
    expect(gemini({ description: 'Anything.' })).toEqual(['/properties/a: a schema needs a type']);
    expect(gemini({ anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] })).toEqual([]);
  });

  it('finds problems deep inside items and anyOf branches', () => {
    const schema = {
      type: 'object',
      properties: { list: { type: 'array', items: { anyOf: [{ type: 'strung' }] } } },
    };
    expect(checkSchema(schema, 'anthropic')).toEqual([
      '/properties/list/items/anyOf/0: type "strung" is not a JSON Schema type',
    ]);
  });

  it('rejects required names that are not declared', () => {
    expect(checkSchema({ type: 'object', properties: {}, required: ['x'] }, 'anthropic')).toEqual([
      '/: required names undeclared x',
    ]);
  });
});

describe('checkToolName', () => {
  it('applies each provider name rule', () => {
    expect(checkToolName('everything__get-sum', 'openai')).toBe(true);
    expect(checkToolName('a.b', 'openai')).toBe(false);
    expect(checkToolName('x'.repeat(65), 'anthropic')).toBe(false);
    expect(checkToolName('3d', 'gemini')).toBe(false);
    expect(checkToolName('_3d', 'gemini')).toBe(true);
  });
});
