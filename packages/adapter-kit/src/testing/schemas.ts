import fc from 'fast-check';
import { createValidator, isPlainObject } from '@toolplane/toolmodel';

// Test helpers for the schema-conversion properties: generated schemas, instances a schema
// accepts, strict mode's nulls filled in, and Gemini's dialect read back as JSON Schema.

type Json = Record<string, unknown>;

const validator = createValidator();

function put(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** Whether `schema` accepts `value` (JSON Schema 2020-12 or draft-07, by @cfworker/json-schema). */
export function accepts(schema: unknown, value: unknown): boolean {
  return validator.validate(schema as Json, value).valid;
}

const KEYS = ['a', 'b', 'count', '__proto__', 'with space', 'x/y', 'constructor'];

const leaf: fc.Arbitrary<Json> = fc.oneof(
  fc.record(
    {
      type: fc.constant('string'),
      minLength: fc.nat(3),
      maxLength: fc.integer({ min: 3, max: 8 }),
      format: fc.constantFrom('email', 'uri', 'date'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('integer'),
      minimum: fc.integer({ min: -5, max: 0 }),
      maximum: fc.integer({ min: 1, max: 50 }),
      default: fc.constant(1),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    { type: fc.constant('number'), exclusiveMinimum: fc.constant(0) },
    { requiredKeys: ['type'] },
  ),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: ['string', 'null'] }),
  fc.constant({ type: ['integer', 'string'] }),
  fc.constant({ enum: ['red', 'green'] }),
  fc.constant({ type: 'integer', enum: [1, 2, 3] }),
  fc.constant({ const: 'fixed' }),
  fc.constant({ $ref: '#/$defs/point' }),
  fc.constant({ type: 'string', pattern: '^[a-z]+$' }),
);

/** Generated tool input schemas: nested objects and arrays, unions, refs, allOf, hostile keys. */
export const schemaArb: fc.Arbitrary<Json> = fc
  .letrec<{ node: Json; object: Json }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('object'),
      fc.record(
        {
          type: fc.constant('array'),
          items: tie('node'),
          minItems: fc.nat(1),
          maxItems: fc.integer({ min: 1, max: 3 }),
          uniqueItems: fc.constant(false),
        },
        { requiredKeys: ['type', 'items'] },
      ),
      fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      fc.record({
        oneOf: fc.tuple(fc.constant({ type: 'string' }), fc.constant({ type: 'integer' })),
      }),
      fc.record({ allOf: fc.tuple(tie('object'), tie('object')) }),
    ),
    object: fc
      .tuple(
        fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 4 }),
        fc.array(tie('node'), { minLength: 4, maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.constantFrom(undefined, false, { type: 'string' }),
      )
      .map(([keys, nodes, required, extra]) => {
        const properties: Json = {};
        keys.forEach((key, i) => {
          put(properties, key, nodes[i]);
        });
        const schema: Json = {
          type: 'object',
          properties,
          required: keys.filter((_key, i) => required[i]),
        };
        if (extra !== undefined) schema.additionalProperties = extra;
        return schema;
      }),
  }))
  .object.map((root) => ({
    ...root,
    $defs: {
      point: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: 'number' } },
        required: ['x'],
      },
    },
  }));

function resolveRef(root: Json, ref: string): Json {
  let current: unknown = root;
  for (const key of ref.slice(2).split('/'))
    current = isPlainObject(current) ? current[key] : undefined;
  return isPlainObject(current) ? current : {};
}

/** Values shaped by a schema; most are accepted by it (filter with {@link accepts}). */
export function instanceArb(schema: unknown, root: Json, depth = 0): fc.Arbitrary<unknown> {
  if (!isPlainObject(schema) || depth > 6) return fc.constant(null);
  if (typeof schema.$ref === 'string')
    return instanceArb(resolveRef(root, schema.$ref), root, depth + 1);
  if (Array.isArray(schema.allOf)) {
    const merged: Json = { type: 'object', properties: {}, required: [] };
    for (const branch of schema.allOf as Json[]) {
      Object.assign(merged.properties as Json, branch.properties ?? {});
      (merged.required as unknown[]).push(...((branch.required as unknown[] | undefined) ?? []));
    }
    return instanceArb(merged, root, depth + 1);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union))
    return fc.oneof(...union.map((branch) => instanceArb(branch, root, depth + 1)));
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : isPlainObject(schema.properties)
        ? ['object']
        : [];
  if (types.length === 0) return fc.jsonValue({ maxDepth: 1 });
  return fc.constantFrom(...types).chain((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        if (schema.format === 'email') return fc.emailAddress();
        if (schema.format === 'uri') return fc.webUrl();
        if (schema.format === 'date') return fc.constant('2026-11-25');
        return fc.string({
          minLength: (schema.minLength as number | undefined) ?? 0,
          maxLength: (schema.maxLength as number | undefined) ?? 8,
        });
      case 'integer':
        return fc.integer({
          min: (schema.minimum as number | undefined) ?? -100,
          max: (schema.maximum as number | undefined) ?? 100,
        });
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(instanceArb(schema.items, root, depth + 1), {
          minLength: (schema.minItems as number | undefined) ?? 0,
          maxLength: Math.min((schema.maxItems as number | undefined) ?? 3, 3),
        });
      default: {
        const properties = isPlainObject(schema.properties) ? schema.properties : {};
        const required = new Set(Array.isArray(schema.required) ? schema.required : []);
        const keys = Object.keys(properties);
        return fc
          .tuple(
            fc.tuple(...keys.map((key) => instanceArb(properties[key], root, depth + 1))),
            fc.array(fc.boolean(), { minLength: keys.length, maxLength: keys.length }),
          )
          .map(([values, present]) => {
            const value: Json = {};
            keys.forEach((key, i) => {
              if (required.has(key) || present[i] === true) put(value, key, values[i]);
            });
            return value;
          });
      }
    }
  });
}

/**
 * The arguments a strict-mode model sends for `value`: every optional property it leaves out
 * given as `null`, walking the original schema (and, in unions, the branch that accepts it).
 */
export function fillNulls(
  schema: unknown,
  value: unknown,
  root: Json,
  depth = 0,
  keepUndeclared = false,
): unknown {
  if (!isPlainObject(schema) || depth > 32) return value;
  if (typeof schema.$ref === 'string')
    return fillNulls(resolveRef(root, schema.$ref), value, root, depth + 1);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) {
    const branch = (union as unknown[]).find((b) =>
      accepts({ ...(b as Json), $defs: root.$defs }, value),
    );
    return fillNulls(branch, value, root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    // The branches are merged into one closed object: a key any of them declares stays, unless
    // a branch closed with additionalProperties: false leaves it out (the conversion drops it).
    const branches = (schema.allOf as unknown[]).filter(isPlainObject);
    const closed = branches.filter((branch) => branch.additionalProperties === false);
    const properties: Json = {};
    for (const branch of branches) {
      if (!isPlainObject(branch.properties)) continue;
      for (const [key, sub] of Object.entries(branch.properties)) {
        const allowed = closed.every(
          (c) => isPlainObject(c.properties) && Object.hasOwn(c.properties, key),
        );
        if (allowed && !Object.hasOwn(properties, key)) put(properties, key, sub);
      }
    }
    let filled = value;
    for (const branch of branches) filled = fillNulls(branch, filled, root, depth + 1, true);
    return keepUndeclared ? filled : dropUndeclared({ properties }, filled);
  }
  if (Array.isArray(value))
    return value.map((item) => fillNulls(schema.items, item, root, depth + 1));
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return value;
  const filled: Json = {};
  for (const [key, item] of Object.entries(value)) put(filled, key, item);
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (Object.hasOwn(value, key)) put(filled, key, fillNulls(sub, value[key], root, depth + 1));
    else put(filled, key, null);
  }
  return keepUndeclared ? filled : dropUndeclared(schema, filled);
}

/**
 * Strict mode closes every object that leaves additionalProperties unsaid (an explicit `true`
 * or schema falls back to non-strict), so a model sends only the declared keys: an undeclared
 * key the original tolerated is one it never sends.
 */
function dropUndeclared(schema: Json, value: unknown): unknown {
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return value;
  if (schema.additionalProperties !== undefined) return value;
  const kept: Json = {};
  for (const [key, item] of Object.entries(value))
    if (Object.hasOwn(schema.properties, key)) put(kept, key, item);
  return kept;
}

/** Gemini's `Schema` read back as the JSON Schema it means. */
export function fromGemini(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(fromGemini);
  if (!isPlainObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering' || key === 'example') continue;
    if (key === 'type') put(out, key, String(value).toLowerCase());
    else if (
      ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'].includes(
        key,
      )
    )
      put(out, key, Number(value));
    else if (key === 'properties' && isPlainObject(value)) {
      const properties: Json = {};
      for (const [name, sub] of Object.entries(value)) put(properties, name, fromGemini(sub));
      put(out, key, properties);
    } else put(out, key, fromGemini(value));
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

/**
 * What a Gemini model sends for `value` where the written schema asks for text in place of a
 * free-form object: that object as JSON text. Walks the written schema (read back as JSON Schema).
 */
export function encodeFor(schema: unknown, value: unknown, depth = 0): unknown {
  if (!isPlainObject(schema) || depth > 32) return value;
  if (Array.isArray(schema.anyOf)) {
    for (const branch of schema.anyOf as unknown[]) {
      const encoded = encodeFor(branch, value, depth + 1);
      if (accepts(branch, encoded)) return encoded;
    }
    return value;
  }
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  if (isPlainObject(value) && types.includes('string') && !types.includes('object')) {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return value.map((item) => encodeFor(schema.items, item, depth + 1));
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return value;
  const encoded: Json = {};
  for (const [key, item] of Object.entries(value)) {
    put(
      encoded,
      key,
      Object.hasOwn(schema.properties, key)
        ? encodeFor(schema.properties[key], item, depth + 1)
        : item,
    );
  }
  return encoded;
}
