import { describe, expect, it } from 'vitest';
import { checkSchema } from './schema-check.js';
import { convertSchema } from './schema-conversion.js';

const TARGETS = ['openai-strict', 'openai', 'anthropic', 'gemini'] as const;

describe('convertSchema for Gemini, an enum that allows null', () => {
  it('writes an untyped enum with null as a nullable STRING enum without the null', () => {
    const converted = convertSchema(
      { type: 'object', properties: { colour: { enum: ['red', 'green', null] } } },
      'gemini',
    );
    // The null was lost: the enum went into the description and the value became any scalar.
    expect(converted.schema.properties).toEqual({
      colour: { type: 'STRING', enum: ['red', 'green'], nullable: true },
    });
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });

  it('keeps the enum of a typed nullable string, and the null of a nullable enum of numbers', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: {
          typed: { type: ['string', 'null'], enum: ['a', null] },
          size: { enum: [1, 2, null] },
        },
      },
      'gemini',
    );
    const properties = converted.schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.typed).toEqual({ type: 'STRING', enum: ['a'], nullable: true });
    // Gemini's enums are strings: a number enum is said in the description, its null kept.
    expect(properties.size).toMatchObject({ type: 'INTEGER', nullable: true });
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });
});

describe('convertSchema for Gemini, an untyped enum of other values than strings', () => {
  it('types it by its values rather than as any scalar', () => {
    const converted = convertSchema(
      {
        type: 'object',
        properties: { size: { enum: [1, 2, 3] }, flag: { enum: [true, false] } },
      },
      'gemini',
    );
    const properties = converted.schema.properties as Record<string, Record<string, unknown>>;
    // Both were written as any of STRING, NUMBER and BOOLEAN, with the enum in the description.
    expect(properties.size).toMatchObject({ type: 'INTEGER' });
    expect(properties.flag).toMatchObject({ type: 'BOOLEAN' });
    expect(converted.notes.join('\n')).not.toMatch(/any scalar/);
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
  });

  it('types an enum of objects as an object, so a model can send one of them', () => {
    const shapes = [
      { kind: 'circle', r: 1 },
      { kind: 'square', side: 2 },
    ];
    const converted = convertSchema(
      { type: 'object', properties: { shape: { enum: shapes } }, required: ['shape'] },
      'gemini',
    );
    const shape = (converted.schema.properties as Record<string, Record<string, unknown>>).shape;
    // It was any of STRING, NUMBER and BOOLEAN: no value a model could send was one of the enum's.
    expect(converted.notes.join('\n')).not.toMatch(/any scalar/);
    expect(shape?.anyOf).toBeUndefined();
    expect(String(shape?.description)).toContain('"kind":"circle"');
    expect(checkSchema(converted.schema, 'gemini')).toEqual([]);
    // What the model sends for it comes back as the object the tool's schema takes.
    const sent = { shape: JSON.stringify(shapes[1]) };
    expect(converted.restore(sent)).toEqual({ shape: shapes[1] });
  });
});

describe('convertSchema, a schema that allows no value', () => {
  const schema = {
    type: 'object',
    properties: {
      q: { type: 'string' },
      legacy: false,
      mode: { type: 'string', enum: [] },
    },
    required: ['q'],
  };

  it('leaves a property of false or enum: [] out of what the model may send, for every target', () => {
    for (const target of TARGETS) {
      const converted = convertSchema(schema, target);
      // `false` became "any value", and `enum: []` went on as it was (Gemini refuses it).
      expect(Object.keys(converted.schema.properties as object), target).toEqual(['q']);
      expect(checkSchema(converted.schema, target), target).toEqual([]);
      expect(converted.notes.join('\n'), target).toMatch(/\/properties\/legacy: .*no value/);
      expect(converted.notes.join('\n'), target).toMatch(/\/properties\/mode: .*no value/);
    }
    expect(convertSchema(schema, 'openai-strict')).toMatchObject({ strict: true });
    expect(convertSchema(schema, 'openai-strict').schema.required).toEqual(['q']);
  });

  it('says so when such a property is required, which no call can meet', () => {
    const converted = convertSchema({ ...schema, required: ['q', 'legacy'] }, 'gemini');
    expect(converted.schema.required).toEqual(['q']);
    expect(converted.notes.join('\n')).toMatch(/\/properties\/legacy: .*required.*no call/);
  });

  it('leaves a union branch of false or enum: [] out', () => {
    for (const target of TARGETS) {
      const converted = convertSchema(
        {
          type: 'object',
          properties: { v: { anyOf: [{ type: 'integer' }, false, { enum: [] }] } },
          required: ['v'],
        },
        target,
      );
      const v = (converted.schema.properties as Record<string, Record<string, unknown>>).v;
      expect(v?.anyOf, target).toHaveLength(1);
      expect(checkSchema(converted.schema, target), target).toEqual([]);
    }
  });
});

describe('convertSchema, items that allow no value', () => {
  it('bounds the array instead of taking items of any type, for every target', () => {
    for (const target of TARGETS) {
      const converted = convertSchema(
        {
          type: 'object',
          properties: {
            none: { type: 'array', items: false },
            pair: {
              type: 'array',
              prefixItems: [{ type: 'string' }, { type: 'integer' }],
              items: false,
            },
          },
          required: ['none', 'pair'],
        },
        target,
      );
      const properties = converted.schema.properties as Record<string, Record<string, unknown>>;
      // `items: false` was dropped (any items) or, for Gemini, written as items of any scalar.
      expect(Number(properties.none?.maxItems), target).toBe(0);
      expect(Number(properties.pair?.maxItems), target).toBe(2);
      // Strict mode takes no array without items: it falls back, and says why.
      expect(checkSchema(converted.schema, converted.target), target).toEqual([]);
    }
  });

  it('bounds a draft-07 tuple whose additionalItems allow no value, for every target', () => {
    for (const target of TARGETS) {
      const converted = convertSchema(
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            pair: {
              type: 'array',
              items: [{ type: 'string' }, { type: 'integer' }],
              additionalItems: false,
            },
          },
          required: ['pair'],
        },
        target,
      );
      const pair = (converted.schema.properties as Record<string, Record<string, unknown>>).pair;
      // `additionalItems: false` went into the description alone: any number of items was taken.
      expect(Number(pair?.maxItems), target).toBe(2);
      expect(String(pair?.description), target).not.toContain('additionalItems');
      expect(checkSchema(converted.schema, converted.target), target).toEqual([]);
    }
  });
});
