/** What a {@link SubschemaKeyword}'s value holds. */
export type SubschemaShape =
  /** One subschema. */
  | 'schema'
  /** An array of subschemas. */
  | 'array'
  /** An object whose values are subschemas. */
  | 'map'
  /** One subschema (2020-12) or an array of them (draft-07 tuples): `items`. */
  | 'schema-or-array';

/** What part of the instance a {@link SubschemaKeyword}'s subschemas are applied to. */
export type SubschemaTarget =
  /** The instance itself (`allOf`, `not`, `if`, …). */
  | 'instance'
  /** The values of (some of) its properties. */
  | 'property'
  /** Its items by position or the ones left over. */
  | 'item'
  /** Some item (`contains`). */
  | 'some-item'
  /** Its property names (`propertyNames`). */
  | 'name'
  /** Nothing: definitions, applied only through `$ref`. */
  | 'none';

/** One JSON Schema keyword whose value holds subschemas. */
export interface SubschemaKeyword {
  readonly name: string;
  readonly shape: SubschemaShape;
  readonly target: SubschemaTarget;
  /** Set for keywords draft-07 has and 2020-12 replaced (`additionalItems`, `dependencies`, …). */
  readonly draft07Only?: true;
}

function keyword(
  name: string,
  shape: SubschemaShape,
  target: SubschemaTarget,
  draft07Only = false,
): SubschemaKeyword {
  return Object.freeze(
    draft07Only ? { name, shape, target, draft07Only } : { name, shape, target },
  );
}

/**
 * Every keyword of JSON Schema 2020-12 and draft-07 whose value holds subschemas: the one table
 * the schema walk, the validator's error reports and the adapters' schema conversion read, so a
 * keyword is never known to one and unknown to another. Keywords not listed hold no subschema; a
 * `$ref` under one is never followed.
 */
export const SUBSCHEMA_KEYWORDS: readonly SubschemaKeyword[] = Object.freeze([
  keyword('allOf', 'array', 'instance'),
  keyword('anyOf', 'array', 'instance'),
  keyword('oneOf', 'array', 'instance'),
  keyword('not', 'schema', 'instance'),
  keyword('if', 'schema', 'instance'),
  keyword('then', 'schema', 'instance'),
  keyword('else', 'schema', 'instance'),
  keyword('dependentSchemas', 'map', 'instance'),
  keyword('dependencies', 'map', 'instance', true),
  keyword('properties', 'map', 'property'),
  keyword('patternProperties', 'map', 'property'),
  keyword('additionalProperties', 'schema', 'property'),
  keyword('unevaluatedProperties', 'schema', 'property'),
  keyword('propertyNames', 'schema', 'name'),
  keyword('prefixItems', 'array', 'item'),
  keyword('items', 'schema-or-array', 'item'),
  keyword('additionalItems', 'schema', 'item', true),
  keyword('unevaluatedItems', 'schema', 'item'),
  keyword('contains', 'schema', 'some-item'),
  keyword('$defs', 'map', 'none'),
  keyword('definitions', 'map', 'none', true),
]);

/** The names of the {@link SUBSCHEMA_KEYWORDS} that pass `test`, as a set to look keys up in. */
export function subschemaKeywords(test: (keyword: SubschemaKeyword) => boolean): Set<string> {
  return new Set(SUBSCHEMA_KEYWORDS.filter(test).map(({ name }) => name));
}
