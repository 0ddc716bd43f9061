import { describe, expect, it } from 'vitest';
import { checkSchema } from './schema-check.js';
import { convertSchema } from './schema-conversion.js';
import { ROOT_TEXT } from './schema-parts.js';
import { accepts, fromGemini } from './testing/schemas.js';

const TARGETS = ['openai-strict', 'openai', 'anthropic', 'gemini'] as const;

describe('convertSchema in strict mode', () => {
  it('requires every property, makes optional ones nullable and closes every object', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: 'array', items: { type: 'object', properties: { x: { enum: [1, 2] } } } },
        },
        required: ['a'],
      },
      'openai-strict',
    );
    expect(converted).toMatchObject({ strict: true, target: 'openai-strict' });
    expect(converted.reason).toBeUndefined();
    expect(converted.schema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            properties: { x: { anyOf: [{ enum: [1, 2] }, { type: 'null' }] } },
            required: ['x'],
            additionalProperties: false,
          },
        },
      },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    expect(checkSchema(converted.schema, 'openai-strict')).toEqual([]);
    // The nulls a strict model sends for left-out properties are removed again.
    expect(converted.restore({ a: 'x', b: [{ x: null }, { x: 2 }] })).toEqual({
      a: 'x',
      b: [{}, { x: 2 }],
    });
    expect(converted.restore({ a: 'x', b: null })).toEqual({ a: 'x' });
  });

  it('keeps a null that the original schema itself allowed', () => {
    const converted = convertSchema(
      { type: 'object', properties: { n: { type: ['integer', 'null'] } } },
      'openai-strict',
    );
    expect(converted.schema.properties).toEqual({ n: { type: ['integer', 'null'] } });
    expect(converted.restore({ n: null })).toEqual({ n: null });
  });

  it('keeps a null that an untyped enum or const of the original allowed', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: { e: { enum: ['a', null] }, c: { const: null }, o: { enum: ['a'] } },
      },
      'openai-strict',
    );
    expect(converted.strict).toBe(true);
    expect(converted.restore({ e: null, c: null, o: null })).toEqual({ e: null, c: null });
  });

  it('moves keywords strict mode lacks into the description and lists them', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: { q: { type: 'string', description: 'Query.', minLength: 2, default: 'x' } },
        required: ['q'],
      },
      'openai-strict',
    );
    expect(converted.schema.properties).toEqual({
      q: { type: 'string', description: 'Query. (minLength: 2; default: "x")' },
    });
    expect(converted.notes).toEqual([
      '/properties/q: minLength moved into the description',
      '/properties/q: default moved into the description',
    ]);
  });

  it.each([
    [{ m: { type: 'object', additionalProperties: { type: 'string' } } }, 'free-form keys'],
    [{ m: { type: 'object' } }, 'no declared properties'],
    [{ m: {} }, 'any type'],
    [{ m: { type: 'array' } }, 'without an items schema'],
  ])('falls back to strict: false with a reason for %j', (properties, reason) => {
    const converted = convertSchema({ type: 'object', properties }, 'openai-strict');
    expect(converted).toMatchObject({ strict: false, target: 'openai' });
    expect(converted.reason).toContain(reason);
    expect(converted.reason).toMatch(/^\/properties\/m: /);
    expect(checkSchema(converted.schema, 'openai')).toEqual([]);
  });

  it('keeps a tool without arguments strict', () => {
    const converted = convertSchema({ type: 'object', properties: {} }, 'openai-strict');
    expect(converted.strict).toBe(true);
    expect(converted.schema).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  it('falls back when objects nest deeper than OpenAI allows', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 12; i++)
      schema = { type: 'object', properties: { n: schema }, required: ['n'] };
    expect(convertSchema(schema, 'openai-strict').reason).toContain('deeper than 10');
  });
});

describe('convertSchema with $ref', () => {
  const tree = {
    type: 'object',
    $defs: {
      node: {
        type: 'object',
        properties: {
          value: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/node' } },
        },
        required: ['value'],
      },
    },
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
  };

  it.each(TARGETS)('inlines refs and cuts a cycle after one level for %s', (target) => {
    const converted = convertSchema(tree, target);
    expect(JSON.stringify(converted.schema)).not.toContain('"$ref":');
    expect(JSON.stringify(converted.schema)).not.toContain('"$defs":');
    expect(converted.notes).toContain(
      '/properties/root/properties/children/items: recursive $ref #/$defs/node cut after one level',
    );
    expect(checkSchema(converted.schema, converted.target)).toEqual([]);
  });

  it('gives a recursive schema strict: false and says why', () => {
    expect(convertSchema(tree, 'openai-strict').reason).toBe(
      '/properties/root/properties/children/items: recursive $ref #/$defs/node',
    );
  });

  it('ends on a self-referencing allOf and on a ref chain that loops', () => {
    const loops = {
      type: 'object',
      $defs: {
        a: { allOf: [{ $ref: '#/$defs/a' }] },
        b: { $ref: '#/$defs/c' },
        c: { $ref: '#/$defs/b' },
      },
      properties: {
        x: { $ref: '#/$defs/a' },
        y: { $ref: '#/$defs/b' },
        z: { $ref: 'https://example.com/s.json' },
      },
    };
    for (const target of TARGETS) {
      const converted = convertSchema(loops, target);
      expect(checkSchema(converted.schema, converted.target)).toEqual([]);
    }
    expect(convertSchema(loops, 'anthropic').notes).toEqual(
      expect.arrayContaining([
        '/properties/x/allOf: recursive $ref #/$defs/a cut after one level',
        '/properties/y: $ref #/$defs/b could not be resolved; any value is described',
        '/properties/z: $ref https://example.com/s.json could not be resolved; any value is described',
      ]),
    );
  });

  it('merges allOf objects', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          p: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { properties: { b: { type: 'number' } }, required: ['b'] },
            ],
          },
        },
      },
      'anthropic',
    );
    expect(converted.schema.properties).toEqual({
      p: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });
  });
});

describe('convertSchema for Gemini', () => {
  it('writes upper-case types, nullable, string counts and anyOf for several types', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          a: { type: ['string', 'null'], maxLength: 5 },
          b: { type: ['integer', 'string'] },
          c: { type: 'integer', enum: [1, 2] },
          d: { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
          e: { const: 'x' },
        },
        required: ['a'],
      },
      'gemini',
    );
    expect(converted.schema).toEqual({
      type: 'OBJECT',
      properties: {
        a: { type: 'STRING', nullable: true, maxLength: '5' },
        b: { anyOf: [{ type: 'INTEGER' }, { type: 'STRING' }] },
        c: { type: 'INTEGER', description: '(enum: [1,2])' },
        d: { anyOf: [{ type: 'STRING' }, { type: 'BOOLEAN' }] },
        e: { type: 'STRING', enum: ['x'] },
      },
      required: ['a'],
    });
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
    expect(converted.notes).toEqual([
      '/properties/c: enum moved into the description',
      '/properties/d: oneOf written as anyOf (a value matching several branches passes)',
    ]);
    expect(accepts(fromGemini(converted.schema), { a: null, b: 3 })).toBe(true);
  });
});

describe('convertSchema for Gemini, free-form objects', () => {
  it('writes an object without properties as JSON text and parses it back', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          data: { type: 'object', description: 'Any fields.' },
          n: { type: 'integer' },
        },
      },
      'gemini',
    );
    expect(converted.schema.properties).toEqual({
      data: { type: 'STRING', description: 'Any fields. A JSON object, written as text.' },
      n: { type: 'INTEGER' },
    });
    expect(converted.notes).toEqual(['/properties/data: a free-form object written as JSON text']);
    expect(converted.restore({ data: '{"x":1}', n: 2 })).toEqual({ data: { x: 1 }, n: 2 });
    // Text that is not an object is left for the runner's validation to report.
    expect(converted.restore({ data: '[1]' })).toEqual({ data: '[1]' });
    // So is an object whose integer the parse would change (past 2^53 - 1).
    expect(converted.restore({ data: '{"id":9007199254740993}' })).toEqual({
      data: '{"id":9007199254740993}',
    });
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });

  it('gives every Gemini array items: any of a tuple item schema, else any scalar', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          any: { type: 'array', minItems: 1 },
          pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] },
          one: { type: 'array', items: [{ type: 'object', properties: {} }] },
        },
      },
      'gemini',
    );
    const properties = converted.schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.any).toEqual({
      type: 'ARRAY',
      minItems: '1',
      items: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }, { type: 'BOOLEAN' }] },
    });
    expect(properties.pair?.items).toEqual({ anyOf: [{ type: 'NUMBER' }, { type: 'STRING' }] });
    // A one-item tuple of a free-form object: its JSON text is parsed back.
    expect(properties.one?.items).toMatchObject({ type: 'STRING' });
    expect(converted.restore({ one: ['{"a":1}'] })).toEqual({ one: [{ a: 1 }] });
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });

  it('writes the items past a tuple as items, a draft-07 tuple as a 2020-12 one, for every target', () => {
    const tuples = {
      modern: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } },
      draft07: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'integer' } },
    };
    const value = ['a', 1, 2];
    for (const target of TARGETS) {
      for (const [dialect, tuple] of Object.entries(tuples)) {
        const schema = { type: 'object', properties: { t: tuple }, required: ['t'] };
        const converted = convertSchema(
          dialect === 'draft07'
            ? { $schema: 'http://json-schema.org/draft-07/schema#', ...schema }
            : schema,
          target,
        );
        const t = (converted.schema.properties as Record<string, Record<string, unknown>>).t;
        const at = `${target} ${dialect}`;
        if (target === 'gemini' || target === 'openai-strict') {
          // Neither takes prefixItems. Items of the rest alone (or of the tuple alone): a model
          // that kept to them (strict mode makes it) could not send the tuple's first item (or
          // any item past it).
          const [string, integer] =
            target === 'gemini' ? ['STRING', 'INTEGER'] : ['string', 'integer'];
          expect(t?.items, at).toEqual({ anyOf: [{ type: string }, { type: integer }] });
          const written = target === 'gemini' ? fromGemini(converted.schema) : converted.schema;
          expect(accepts(written, { t: value }), at).toBe(true);
        } else {
          // The draft-07 rest went into the description alone.
          expect(t?.prefixItems, at).toEqual([{ type: 'string' }]);
          expect(t?.items, at).toEqual({ type: 'integer' });
          expect(accepts(converted.schema, { t: value }), at).toBe(true);
        }
        expect(checkSchema(converted.schema, converted.target), at).toEqual([]);
      }
    }
  });

  it('gives Gemini a type for a value of any type: any scalar, which the original takes', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          value: {},
          mixed: { enum: ['a', 1, null] },
          list: { type: 'array', items: true },
        },
      },
      'gemini',
    );
    const scalars = { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }, { type: 'BOOLEAN' }] };
    const properties = converted.schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.value).toEqual(scalars);
    // An enum's null is said with nullable, one branch per type of its other values.
    expect(properties.mixed).toMatchObject({
      anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }],
      nullable: true,
    });
    expect(properties.list).toEqual({ type: 'ARRAY', items: scalars });
    expect(converted.notes).toContain(
      '/properties/value: a value of any type written as any scalar',
    );
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });

  it('parses back the JSON-text branch of a property with several types', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: { data: { type: ['object', 'array'], items: { type: 'object' } } },
        required: ['data'],
      },
      'gemini',
    );
    const data = (converted.schema.properties as Record<string, Record<string, unknown>>).data;
    expect(data?.anyOf).toEqual([
      { type: 'STRING', description: 'A JSON object, written as text.' },
      { type: 'ARRAY', items: { type: 'STRING', description: 'A JSON object, written as text.' } },
    ]);
    expect(converted.restore({ data: '{"k":1}' })).toEqual({ data: { k: 1 } });
    expect(converted.restore({ data: ['{"k":1}'] })).toEqual({ data: [{ k: 1 }] });
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });

  it('leaves text as text where a branch beside the JSON-text one takes strings', () => {
    const converted = convertSchema(
      { type: 'object', properties: { data: { type: ['object', 'string'] } } },
      'gemini',
    );
    expect(converted.restore({ data: '{"k":1}' })).toEqual({ data: '{"k":1}' });
  });

  it('asks for a root without properties but with free-form keys as JSON text in one property', () => {
    for (const input of [
      { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 },
      { type: 'object', patternProperties: { '^[A-Z]+$': { type: 'string' } } },
    ]) {
      const converted = convertSchema(input, 'gemini');
      expect(converted.schema.type).toBe('OBJECT');
      expect(converted.schema.required).toEqual([ROOT_TEXT]);
      const text = (converted.schema.properties as Record<string, Record<string, unknown>>)[
        ROOT_TEXT
      ];
      expect(text?.type).toBe('STRING');
      expect(converted.notes).toContain('/: a free-form object written as JSON text');
      expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
      expect(converted.restore({ [ROOT_TEXT]: '{"A":"1"}' })).toEqual({ A: '1' });
      // The other providers take the map as it is.
      for (const target of ['openai', 'anthropic'] as const)
        expect(convertSchema(input, target).schema.properties).toEqual({});
    }
  });

  it('keeps a root without properties or free-form keys a tool without arguments', () => {
    for (const input of [{ type: 'object' }, { type: 'object', additionalProperties: false }]) {
      const converted = convertSchema(input, 'gemini');
      expect(converted.schema.properties).toEqual({});
      expect(converted.restore({})).toEqual({});
    }
  });
});

describe('convertSchema on hostile input', () => {
  it('keeps a property named __proto__ as a property, never as a prototype', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}},"required":["__proto__"]}',
    ) as unknown;
    for (const target of TARGETS) {
      const converted = convertSchema(schema, target);
      const properties = converted.schema.properties as Record<string, unknown>;
      expect(Object.keys(properties)).toEqual(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
      expect(JSON.stringify(converted.schema)).toContain('"__proto__":{"type"');
      expect(checkSchema(converted.schema, converted.target)).toEqual([]);
    }
    const strict = convertSchema(schema, 'openai-strict');
    const restored = strict.restore(
      JSON.parse('{"__proto__":"x","constructor":null}') as Record<string, unknown>,
    );
    expect(Object.keys(restored)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
  });

  it('folds a top-level anyOf into the root object', () => {
    const converted = convertSchema(
      {
        type: 'object',
        anyOf: [
          { properties: { id: { type: 'string' } }, required: ['id'] },
          { properties: { name: { type: 'string' } }, required: ['name'] },
        ],
      },
      'anthropic',
    );
    expect(Object.keys(converted.schema.properties as object)).toEqual(['id', 'name']);
    expect(converted.schema.anyOf).toBeUndefined();
    expect(checkSchema(converted.schema, 'anthropic')).toEqual([]);
  });

  it('moves the root keywords providers refuse (if, then, else, not, enum) into the description', () => {
    const schema = {
      type: 'object',
      description: 'Moves a file.',
      properties: { from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' } },
      if: { properties: { force: { const: true } }, required: ['force'] },
      then: { required: ['to'] },
      else: { required: ['from', 'to'] },
      not: { required: ['nothing'] },
      enum: [{ from: 'a', to: 'b' }],
    };
    for (const target of ['openai', 'anthropic', 'openai-strict', 'gemini'] as const) {
      const converted = convertSchema(schema, target);
      expect(checkSchema(converted.schema, converted.target)).toEqual([]);
      for (const keyword of ['if', 'then', 'else', 'not', 'enum']) {
        expect(converted.schema[keyword]).toBeUndefined();
        expect(converted.schema.description).toContain(`${keyword}: `);
      }
      expect(converted.schema.description).toMatch(/^Moves a file\. /);
    }
    expect(convertSchema(schema, 'anthropic').notes).toContain(
      '/: top-level if moved into the description',
    );
  });

  it('turns a non-object or missing schema into an empty object schema', () => {
    for (const input of [undefined, 'x', [], { type: 'string' }]) {
      expect(checkSchema(convertSchema(input, 'openai').schema, 'openai')).toEqual([]);
    }
  });
});
