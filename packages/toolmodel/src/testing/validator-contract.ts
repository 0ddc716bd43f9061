import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors.js';
import type { JsonSchema, Tool } from '../tool.js';
import type { SchemaValidator } from '../validator.js';
import { errorCodeOf } from './error-code.js';
import { errorsOf } from './errors-of.js';
import { describeFormatContract } from './validator-contract-formats.js';
import { describePatternContract } from './validator-contract-patterns.js';
import { TYPICAL_TOOL_SCHEMA as typicalSchema } from './typical-schema.js';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

// Builds `depth` levels from the inside out, without recursion.
function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let node: unknown = {};
  for (let level = 0; level < depth; level++) node = wrap(node);
  return node;
}

const deepValue = (depth: number): unknown => nested(depth, (inner) => ({ next: inner }));

/**
 * Registers the behaviour every {@link SchemaValidator} must share as a vitest suite: dialects,
 * `$ref` rules, error shape, tool helpers and hostile input. Third-party validators call it from
 * their own tests, with a factory that returns a fresh validator.
 *
 * ```ts
 * import { describeSchemaValidatorContract } from '@toolplane/toolmodel/testing/vitest';
 * describeSchemaValidatorContract('my validator', () => createMyValidator());
 * ```
 */
export function describeSchemaValidatorContract(name: string, create: () => SchemaValidator): void {
  describe(`SchemaValidator contract: ${name}`, () => {
    describe('dialects', () => {
      it('treats a schema without $schema as 2020-12', () => {
        const schema = { prefixItems: [{ type: 'string' }], items: false };
        expect(create().validate(schema, ['a']).valid).toBe(true);
        expect(create().validate(schema, ['a', 'b']).valid).toBe(false);
      });

      it.each([
        'http://json-schema.org/draft-07/schema#',
        'http://json-schema.org/draft-07/schema',
        'https://json-schema.org/draft-07/schema#',
        'https://json-schema.org/draft-07/schema',
      ])('validates as draft-07 when $schema is %s', ($schema) => {
        // Array-form `items` is draft-07 positional validation (2020-12 has prefixItems).
        const schema = { $schema, items: [{ type: 'string' }], additionalItems: false };
        expect(create().validate(schema, ['a']).valid).toBe(true);
        expect(create().validate(schema, [1]).valid).toBe(false);
        expect(create().validate(schema, ['a', 'b']).valid).toBe(false);
      });

      it.each([
        'https://json-schema.org/draft/2020-12/schema',
        'https://json-schema.org/draft/2020-12/schema#',
        'http://json-schema.org/draft/2020-12/schema',
        'http://json-schema.org/draft/2020-12/schema#',
      ])('validates as 2020-12 when $schema is %s', ($schema) => {
        const schema = { $schema, prefixItems: [{ type: 'string' }], items: { type: 'number' } };
        expect(create().validate(schema, ['a', 1]).valid).toBe(true);
        expect(create().validate(schema, ['a', 'b']).valid).toBe(false);
      });

      it.each<unknown>([
        'http://json-schema.org/draft-04/schema#',
        'http://json-schema.org/draft-06/schema#',
        'https://json-schema.org/draft/2019-09/schema',
        'https://example.com/my-dialect',
        '',
        42,
        null,
        { $ref: '#' },
      ])('throws unsupported_schema when $schema is %j', ($schema) => {
        expect(errorCodeOf(() => create().validate({ $schema, type: 'string' }, 'x'))).toBe(
          'unsupported_schema',
        );
      });
    });

    describe('object schemas', () => {
      it('accepts any object for { type: "object" }', () => {
        const validator = create();
        const schema = { type: 'object' };
        for (const value of [{}, { a: 1 }, { nested: { deep: [1, 2, 3] } }]) {
          expect(validator.validate(schema, value)).toEqual({ valid: true });
        }
        expect(validator.validate(schema, []).valid).toBe(false);
        expect(validator.validate(schema, null).valid).toBe(false);
      });

      it('accepts only {} when additionalProperties is false and nothing is declared', () => {
        const validator = create();
        const schema = { type: 'object', additionalProperties: false };
        expect(validator.validate(schema, {})).toEqual({ valid: true });
        expect(errorsOf(validator.validate(schema, { a: 1 }))).toEqual([
          { path: '/a', keyword: 'additionalProperties' },
        ]);
      });

      it('accepts boolean schemas', () => {
        expect(create().validate(true, { anything: 1 })).toEqual({ valid: true });
        expect(create().validate(false, 1).valid).toBe(false);
      });
    });

    describe('errors', () => {
      it('returns the specific error with a JSON Pointer to the value', () => {
        const result = create().validate(typicalSchema, {
          title: 'x',
          owner: { login: 7 },
        });
        expect(errorsOf(result)).toEqual([{ path: '/owner/login', keyword: 'type' }]);
      });

      it('locates a missing required property at its parent object', () => {
        expect(errorsOf(create().validate(typicalSchema, {}))).toEqual([
          { path: '', keyword: 'required' },
        ]);
        expect(errorsOf(create().validate(typicalSchema, { title: 'x', owner: {} }))).toEqual([
          { path: '/owner', keyword: 'required' },
        ]);
      });

      it('reports every independent violation, each with a message', () => {
        const result = create().validate(typicalSchema, {
          title: '',
          count: -1,
          state: 'merged',
          labels: ['ok', 3],
          extra: true,
        });
        expect(result.valid).toBe(false);
        const errors = result.valid ? [] : result.errors;
        expect(errors.map((error) => error.path).sort()).toEqual(
          ['/count', '/extra', '/labels/1', '/state', '/title'].sort(),
        );
        for (const error of errors) expect(error.message.length).toBeGreaterThan(0);
      });

      it('escapes property names in paths as JSON Pointer segments', () => {
        const schema = { properties: { 'a/b~c d%': { type: 'string' } } };
        expect(errorsOf(create().validate(schema, { 'a/b~c d%': 1 }))).toEqual([
          { path: '/a~1b~0c d%', keyword: 'type' },
        ]);
      });

      it('reports an anyOf failure once, not once per branch', () => {
        const schema = { properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } };
        expect(errorsOf(create().validate(schema, { id: true }))).toEqual([
          { path: '/id', keyword: 'anyOf' },
        ]);
      });

      it('names a nested false schema after its holder, and a real not as not', () => {
        const forbidden = { properties: { x: false }, items: false };
        expect(errorsOf(create().validate(forbidden, { x: 1 }))).toEqual([
          { path: '/x', keyword: 'properties' },
        ]);
        const negated = { properties: { x: { not: { type: 'string' } } } };
        expect(errorsOf(create().validate(negated, { x: 'a' }))).toEqual([
          { path: '/x', keyword: 'not' },
        ]);
      });

      it('returns no more errors than the bound', () => {
        const schema = { type: 'array', items: { type: 'string' } };
        const result = create().validate(
          schema,
          Array.from({ length: 10_000 }, (_, i) => i),
        );
        expect(result.valid).toBe(false);
        const count = result.valid ? 0 : result.errors.length;
        expect(count).toBeGreaterThan(0);
        expect(count).toBeLessThanOrEqual(100);
      });
    });

    describe('$ref', () => {
      it('resolves #/$defs, #/definitions, anchors and $id-relative refs', () => {
        const validator = create();
        const schema = {
          $id: 'https://example.com/tools/root.json',
          $defs: {
            count: { type: 'integer' },
            named: { $anchor: 'name', type: 'string' },
            other: { $id: 'other.json', type: 'boolean' },
          },
          definitions: { legacy: { type: 'number' } },
          properties: {
            a: { $ref: '#/$defs/count' },
            b: { $ref: '#name' },
            c: { $ref: 'other.json' },
            d: { $ref: '#/definitions/legacy' },
          },
        };
        expect(validator.validate(schema, { a: 1, b: 'x', c: true, d: 1.5 })).toEqual({
          valid: true,
        });
        expect(errorsOf(validator.validate(schema, { a: 1.5, b: 1, c: 1, d: 'x' }))).toEqual([
          { path: '/a', keyword: 'type' },
          { path: '/b', keyword: 'type' },
          { path: '/c', keyword: 'type' },
          { path: '/d', keyword: 'type' },
        ]);
      });

      it('resolves #/definitions in draft-07', () => {
        const schema = {
          $schema: DRAFT_07,
          definitions: { tag: { type: 'string', maxLength: 3 } },
          type: 'array',
          items: { $ref: '#/definitions/tag' },
        };
        expect(create().validate(schema, ['a', 'bc']).valid).toBe(true);
        expect(errorsOf(create().validate(schema, ['a', 'long']))).toEqual([
          { path: '/1', keyword: 'maxLength' },
        ]);
      });

      it('validates recursive data through a recursive $ref', () => {
        const tree = {
          $defs: {
            node: {
              type: 'object',
              properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } },
              additionalProperties: false,
            },
          },
          $ref: '#/$defs/node',
        };
        expect(create().validate(tree, { children: [{ children: [] }] }).valid).toBe(true);
        expect(errorsOf(create().validate(tree, { children: [{ child: 1 }] }))).toEqual([
          { path: '/children/0/child', keyword: 'additionalProperties' },
        ]);
      });

      it.each([
        'https://example.com/schemas/user.json',
        'http://127.0.0.1:1/never-fetched.json#/x',
        'other.json',
        '#/$defs/missing',
        'urn:example:thing',
      ])('throws invalid_schema naming an unresolvable $ref %s, without fetching', (ref) => {
        const validator = create();
        let thrown: unknown;
        try {
          validator.validate({ properties: { a: { $ref: ref } } }, { a: 1 });
        } catch (error) {
          thrown = error;
        }
        expect(ToolError.isInstance(thrown) && thrown.code).toBe('invalid_schema');
        expect((thrown as Error).message).toContain(ref.split('#')[0] || ref);
      });

      it('throws the same invalid_schema on every call with a broken schema', () => {
        const validator = create();
        const schema = { $ref: 'https://example.com/x.json' };
        expect(errorCodeOf(() => validator.validate(schema, 1))).toBe('invalid_schema');
        expect(errorCodeOf(() => validator.validate(schema, 1))).toBe('invalid_schema');
      });
    });

    describe('tools', () => {
      const tool: Tool = {
        name: 'create_issue',
        namespace: 'github',
        inputSchema: {
          type: 'object',
          properties: { title: { type: 'string' } },
          required: ['title'],
        },
        outputSchema: {
          type: 'object',
          properties: { number: { type: 'integer' } },
          required: ['number'],
        },
      };

      it('validates arguments against inputSchema', () => {
        const validator = create();
        expect(validator.validateInput(tool, { title: 'bug' })).toEqual({ valid: true });
        expect(errorsOf(validator.validateInput(tool, {}))).toEqual([
          { path: '', keyword: 'required' },
        ]);
      });

      it('validates results against outputSchema', () => {
        const validator = create();
        expect(validator.validateOutput(tool, { number: 1 })).toEqual({ valid: true });
        expect(errorsOf(validator.validateOutput(tool, { number: 'one' }))).toEqual([
          { path: '/number', keyword: 'type' },
        ]);
      });

      it('passes any result when the tool has no outputSchema', () => {
        const { outputSchema: _outputSchema, ...bare } = tool;
        expect(create().validateOutput(bare, 'anything at all')).toEqual({ valid: true });
      });

      it('names the tool when its schema cannot be used', () => {
        const broken: Tool = {
          name: 'broken',
          namespace: 'test',
          inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/a' } } },
        };
        let thrown: unknown;
        try {
          create().validateInput(broken, { a: 1 });
        } catch (error) {
          thrown = error;
        }
        expect(ToolError.isInstance(thrown) && thrown.code).toBe('invalid_schema');
        expect((thrown as ToolError).toolId).toBe('test:broken');
        expect((thrown as ToolError).op).toBe('validate_input');
      });
    });

    describe('hostile schemas and values', () => {
      it('throws invalid_schema for a schema that is not an object or a boolean', () => {
        for (const schema of [null, undefined, 42, 'object']) {
          const tool = { name: 't', inputSchema: schema } as unknown as Tool;
          expect(errorCodeOf(() => create().validate(schema as unknown as JsonSchema, {}))).toBe(
            'invalid_schema',
          );
          expect(errorCodeOf(() => create().validateInput(tool, {}))).toBe('invalid_schema');
        }
      });

      it('throws invalid_tool for a tool that is not an object', () => {
        for (const tool of [null, undefined, 'tool']) {
          const given = tool as unknown as Tool;
          expect(errorCodeOf(() => create().validateInput(given, {}))).toBe('invalid_tool');
          expect(errorCodeOf(() => create().validateOutput(given, {}))).toBe('invalid_tool');
        }
      });

      it.each([
        ['a self-reference', { $ref: '#' }],
        [
          'a mutual cycle',
          { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
        ],
        [
          'a cycle through allOf',
          { $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
        ],
      ])('throws invalid_schema for %s instead of overflowing', (_label, schema) => {
        expect(errorCodeOf(() => create().validate(schema, { a: 1 }))).toBe('invalid_schema');
      });

      it('answers for 1,000-deep schema and value nesting', () => {
        const schema = nested(1000, (inner) => ({ type: 'object', properties: { next: inner } }));
        const code = errorCodeOf(() => {
          expect(create().validate(schema as JsonSchema, deepValue(1000))).toEqual({ valid: true });
        });
        expect([undefined, 'invalid_schema']).toContain(code);
      });

      it('validates a 1,000-deep value against a recursive schema, or says it cannot', () => {
        const schema = { type: 'object', additionalProperties: { $ref: '#' } };
        const code = errorCodeOf(() => {
          expect(create().validate(schema, deepValue(1000)).valid).toBe(true);
        });
        expect([undefined, 'invalid_schema']).toContain(code);
        const flat = { type: 'object' };
        expect(create().validate(flat, deepValue(100_000))).toEqual({ valid: true });
      });

      it('treats constructor and prototype as plain names and is not polluted by __proto__', () => {
        const schema = JSON.parse(
          '{"type":"object","properties":{"__proto__":{"properties":{"polluted":{"const":1}}},"constructor":{"type":"string"},"prototype":false},"required":["constructor"]}',
        ) as Record<string, unknown>;
        const validator = create();
        expect(validator.validate(schema, { constructor: 'x' })).toEqual({ valid: true });
        const bad = JSON.parse(
          '{"__proto__":{"polluted":2},"constructor":{},"prototype":1}',
        ) as unknown;
        const errors = errorsOf(validator.validate(schema, bad));
        expect(errors).toEqual(
          expect.arrayContaining([
            { path: '/constructor', keyword: 'type' },
            { path: '/prototype', keyword: 'properties' },
          ]),
        );
        // Validators differ on a declared "__proto__" property (ajv skips it on purpose); what
        // they share is that it is data, never the prototype.
        for (const error of errors)
          expect(['/constructor', '/prototype', '/__proto__/polluted']).toContain(error.path);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty('polluted');
        const fromValue = JSON.parse('{"__proto__":{"polluted":1}}') as unknown;
        expect(
          validator.validate(
            { type: 'object', additionalProperties: { type: 'object' } },
            fromValue,
          ),
        ).toEqual({ valid: true });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it('handles huge arrays and strings', () => {
        const validator = create();
        const schema = {
          type: 'object',
          properties: {
            items: { type: 'array', items: { type: 'integer' } },
            text: { type: 'string', maxLength: 10 },
          },
        };
        const items = Array.from({ length: 200_000 }, (_, i) => i);
        expect(validator.validate(schema, { items, text: 'short' })).toEqual({ valid: true });
        const result = validator.validate(schema, { items, text: 'x'.repeat(5_000_000) });
        expect(errorsOf(result)).toEqual([{ path: '/text', keyword: 'maxLength' }]);
      });

      it('leaves the schema object unchanged', () => {
        const schema = {
          type: 'object',
          properties: { a: { $ref: '#/$defs/a' } },
          $defs: { a: { type: 'string' } },
        };
        const before = JSON.stringify(schema);
        const frozen = Object.freeze(schema);
        expect(create().validate(frozen, { a: 'x' })).toEqual({ valid: true });
        expect(JSON.stringify(schema)).toBe(before);
        expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(['$ref']);
      });
    });

    describePatternContract(create);

    describeFormatContract(create);

    it('validates with the same answer on repeated calls', () => {
      const validator = create();
      for (let round = 0; round < 3; round++) {
        expect(validator.validate(typicalSchema, { title: 'x' })).toEqual({ valid: true });
        expect(validator.validate(typicalSchema, { title: 1 }).valid).toBe(false);
      }
    });

    it('accepts unknown keywords', () => {
      const schema = {
        type: 'object',
        'x-ui': { widget: 'text' },
        properties: { a: { type: 'string', examples: ['x'] } },
      };
      expect(create().validate(schema, { a: 'b' })).toEqual({ valid: true });
    });

    it('accepts the 2020-12 URI spelled out', () => {
      expect(create().validate({ $schema: DRAFT_2020_12, type: 'null' }, null)).toEqual({
        valid: true,
      });
    });
  });
}
