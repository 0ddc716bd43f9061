import { createValidator, type JsonSchema } from '@toolplane/toolmodel';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { describeSchemaValidatorContract } from '@toolplane/toolmodel/testing/vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAjvValidator } from './ajv-validator.js';

describeSchemaValidatorContract('createAjvValidator (ajv)', () => createAjvValidator());

describe('createAjvValidator', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('refuses an option it does not take: a misspelt maxErrors kept the default', () => {
    expect(
      errorMessageOf(() => createAjvValidator({ maxError: 1 } as never), 'invalid_argument'),
    ).toBe('createAjvValidator: unknown option "maxError"; did you mean "maxErrors"?');
    // 0 or NaN reported every error, however many.
    for (const maxErrors of [0, Number.NaN, 1.5]) {
      expect(errorMessageOf(() => createAjvValidator({ maxErrors }), 'invalid_argument')).toMatch(
        /^createAjvValidator: maxErrors must be a whole number, 1 or more, got /,
      );
    }
  });

  it('compiles a schema once, on first use, and reuses it', () => {
    // Spies on the shared base class, whose compile both dialects' instances use.
    const base = Object.getPrototypeOf(Ajv2020.prototype) as { compile: Ajv2020['compile'] };
    const compile = vi.spyOn(base, 'compile');
    const validator = createAjvValidator();
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(compile).not.toHaveBeenCalled();
    validator.validate(schema, { a: 'x' });
    validator.validate(schema, { a: 1 });
    validator.validateInput({ name: 't', inputSchema: schema as { type: 'object' } }, {});
    expect(compile).toHaveBeenCalledTimes(1);
    validator.validate({ ...schema }, { a: 'x' });
    expect(compile).toHaveBeenCalledTimes(2);
  });

  it('keeps the $id of one schema from leaking into another', () => {
    const validator = createAjvValidator();
    const first = {
      $id: 'https://example.com/s',
      $defs: { v: { $id: 'v', type: 'string' } },
      $ref: 'v',
    };
    const second = {
      $id: 'https://example.com/s',
      $defs: { v: { $id: 'v', type: 'number' } },
      $ref: 'v',
    };
    expect(validator.validate(first, 'x')).toEqual({ valid: true });
    expect(validator.validate(second, 1)).toEqual({ valid: true });
    expect(validator.validate(second, 'x').valid).toBe(false);
  });

  it('reports at most maxErrors errors', () => {
    const result = createAjvValidator({ maxErrors: 3 }).validate(
      { type: 'array', items: { type: 'string' } },
      [1, 2, 3, 4, 5],
    );
    expect(result.valid ? 0 : result.errors.length).toBe(3);
  });
});

// Schemas covering the keywords tools use. Both validators must give the same verdict for any
// JSON value, and the same error locations except where a combinator's branches are reached
// through a recursive $ref (ajv then also reports the branches' own errors).
const SAME_LOCATIONS = new Set([
  'typical',
  'numbers',
  'combinators',
  'oneOf',
  'conditional',
  'tuple',
  'draft07',
]);
const AGREEMENT_SCHEMAS: Record<string, JsonSchema> = {
  typical: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 8 },
      count: { type: 'integer', minimum: 0, maximum: 100 },
      state: { enum: ['open', 'closed'] },
      labels: { type: 'array', items: { type: 'string' }, maxItems: 3, uniqueItems: true },
      owner: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
    },
    required: ['title'],
    additionalProperties: false,
  },
  numbers: { type: ['number', 'null'], exclusiveMinimum: -5, multipleOf: 0.5 },
  combinators: {
    anyOf: [{ type: 'string', pattern: '^[a-z]+$' }, { type: 'integer' }],
    not: { const: 3 },
  },
  oneOf: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 10 }] },
  conditional: {
    type: 'object',
    if: { properties: { kind: { const: 'a' } }, required: ['kind'] },
    then: { required: ['a'] },
    else: { properties: { b: { type: 'boolean' } } },
  },
  recursive: {
    $defs: {
      list: { type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: '#/$defs/list' }] } },
    },
    $ref: '#/$defs/list',
  },
  tuple: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }], items: false },
  draft07: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { a: { type: 'string' } },
    dependencies: { a: ['b'] },
    patternProperties: { '^x-': { type: 'integer' } },
  },
};

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, 3, 7, 10, 2.5, -10, 'a', 'abc', 'open', 'A1', ''),
    fc.integer({ min: -20, max: 200 }),
    // Multiples of 1/4 and huge integers: ajv's multipleOf works within 1e-9 (see README), so
    // values that differ from a multiple by less than that are left out.
    fc.integer({ min: -4_000_000, max: 4_000_000 }).map((n) => n / 4),
    fc.constantFrom(5e20, 1e21, 2 ** 53, -(2 ** 60)),
    fc.string({ maxLength: 10 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom(
        'title',
        'count',
        'state',
        'labels',
        'owner',
        'login',
        'kind',
        'a',
        'b',
        'x-1',
        'other',
      ),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

describe('createAjvValidator and createValidator', () => {
  const ajv = createAjvValidator({ maxErrors: 1000 });
  const cfworker = createValidator({ maxErrors: 1000 });
  const locations = (result: ReturnType<typeof ajv.validate>) =>
    result.valid ? [] : [...new Set(result.errors.map((error) => error.path))].sort();

  it.each(Object.keys(AGREEMENT_SCHEMAS))('agree on generated values for the %s schema', (name) => {
    const schema = AGREEMENT_SCHEMAS[name]!;
    fc.assert(
      fc.property(json, (value) => {
        const expected = cfworker.validate(schema, value);
        const actual = ajv.validate(schema, value);
        expect(actual.valid).toBe(expected.valid);
        if (SAME_LOCATIONS.has(name)) expect(locations(actual)).toEqual(locations(expected));
      }),
      { numRuns: 300 },
    );
  });
});
