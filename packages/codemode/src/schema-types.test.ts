import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SchemaConverter } from './schema-types.js';
import { typecheck } from './testing/typecheck.js';

function typeOf(schema: unknown): string {
  return new SchemaConverter('Def').typeOf(schema).replace(/\s+/g, ' ');
}

/** One script declaring `type T<n>` for each schema, and its aliases. */
function script(schemas: readonly unknown[]): string {
  const converter = new SchemaConverter('Def');
  const types = schemas.map((schema, i) => `type T${String(i)} = ${converter.typeOf(schema)};\n`);
  return `${types.join('')}${converter.aliases()}`;
}

describe('SchemaConverter', () => {
  it('writes primitives, enums, consts and nullable types', () => {
    expect(typeOf({ type: 'string' })).toBe('string');
    expect(typeOf({ type: ['integer', 'null'] })).toBe('number | null');
    expect(typeOf({ enum: ['a', 1, null] })).toBe('"a" | 1 | null');
    expect(typeOf({ const: { a: [1] } })).toBe('{ a: [1] }');
    expect(typeOf({ type: 'string', nullable: true })).toBe('string | null');
    expect(typeOf(true)).toBe('unknown');
    expect(typeOf(false)).toBe('never');
  });

  it('writes objects with required and optional properties and their descriptions', () => {
    const type = new SchemaConverter('Def').typeOf({
      type: 'object',
      properties: { 'a-b': { type: 'number', description: 'The */ count' }, c: { type: 'string' } },
      required: ['c'],
      additionalProperties: false,
    });
    expect(type).toBe('{\n  /** The *\\/ count */\n  "a-b"?: number;\n  c: string;\n}');
  });

  it('writes an open object with an index signature that admits its properties', () => {
    expect(typeOf({ type: 'object', properties: { a: { type: 'number' } } })).toBe(
      '{ a?: number; [key: string]: unknown; }',
    );
    expect(typeOf({ type: 'object', additionalProperties: { type: 'string' } })).toBe(
      '{ [key: string]: string; }',
    );
  });

  it('writes arrays and tuples of both drafts', () => {
    expect(typeOf({ type: 'array', items: { type: ['string', 'number'] } })).toBe(
      '(string | number)[]',
    );
    expect(typeOf({ prefixItems: [{ type: 'string' }], items: false, minItems: 1 })).toBe(
      '[string]',
    );
    expect(typeOf({ items: [{ type: 'string' }], additionalItems: { type: 'number' } })).toBe(
      '[string?, ...number[]]',
    );
  });

  it('names recursive references and never lets an alias refer to itself directly', () => {
    const schema = {
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
      $ref: '#/$defs/node',
    };
    const text = script([schema, { $ref: '#' }, { anyOf: [{ $ref: '#' }, { type: 'string' }] }]);
    expect(text).toContain('next?: Def1;');
    expect(typecheck(text)).toEqual([]);
  });

  it('leaves a reference outside the schema unknown, and never fetches', () => {
    expect(typeOf({ $ref: 'https://example.com/schema.json' })).toBe('unknown');
    expect(typeOf({ $ref: '#/$defs/missing' })).toBe('unknown');
  });
});

// The official JSON-Schema-Test-Suite, vendored once, in toolmodel (its README names the commit).
const suiteRoot = fileURLToPath(
  new URL('../../toolmodel/src/testdata/json-schema-test-suite', import.meta.url),
);

describe('SchemaConverter on the JSON-Schema-Test-Suite', () => {
  for (const draft of ['draft2020-12', 'draft7']) {
    it(`writes types that compile with tsc --strict for every ${draft} schema`, () => {
      const dir = join(suiteRoot, draft);
      const schemas = readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .flatMap((name) =>
          (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { schema: unknown }[]).map(
            (group) => group.schema,
          ),
        );
      expect(schemas.length).toBeGreaterThan(200);
      expect(typecheck(script(schemas))).toEqual([]);
    });
  }
});
