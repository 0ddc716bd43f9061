/** Helpers of the schema walk in `schema-conversion`: plans, merging, pointers. */

import { inexactInteger, isPlainObject } from '@toolplane/toolmodel';
import { JSON_TYPES } from './schema-rules.js';

export type Json = Record<string, unknown>;

const MAX_NOTE_VALUE = 200;

/** Where strict mode's nulls are undone: per property, and for array items. */
export interface Plan {
  /**
   * Per property: whether a null stands for "left out" (`dropNull`), the plan inside it, and
   * whether union branches disagree on that (`clash`: restoring cannot know which one a value took).
   */
  props?: Map<string, { dropNull: boolean; inner?: Plan; clash?: true }>;
  items?: Plan;
  /** A free-form object the target could only take as JSON text: parsed back. */
  json?: boolean;
}

/**
 * The one property a root object without declared properties (a map of free-form keys) is asked
 * for in, as JSON text, where the target refuses an object without properties.
 */
export const ROOT_TEXT = 'arguments';

/** Said in the description of a free-form object asked for as JSON text. */
export const JSON_TEXT = 'A JSON object, written as text.';

/**
 * Whether an object schema without declared properties still takes arguments: free-form keys by
 * `additionalProperties` or `patternProperties`. Without them it is a tool without arguments.
 */
export function takesFreeFormKeys(schema: Json): boolean {
  const extra = schema.additionalProperties;
  const patterns = schema.patternProperties;
  return (
    isPlainObject(extra) ||
    extra === true ||
    (isPlainObject(patterns) && Object.keys(patterns).length > 0)
  );
}

/**
 * The arguments a root written as {@link ROOT_TEXT} stood for: its JSON text parsed back. Text
 * that is not an object's JSON is handed on as it is, for the runner's validation to refuse;
 * arguments sent without it are taken as they are.
 */
export function unwrapRoot(args: Json): unknown {
  if (!Object.hasOwn(args, ROOT_TEXT)) return args;
  return restore(args[ROOT_TEXT], { json: true });
}

// Marks a schema copied from a `$ref` target, so the walk knows which refs it is inside.
export const EXPANDED = '\u0000toolplane:expanded';
// Identifiers and containers that are consumed by inlining and never reach a provider.
export const DROPPED = new Set([
  '$schema',
  '$id',
  '$defs',
  'definitions',
  '$comment',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  EXPANDED,
]);

/** Sets an own property, even one named `__proto__`. */
export function put(target: Json, key: string, value: unknown): void {
  // Plain assignment is much faster; only `__proto__` would set the prototype instead.
  if (key !== '__proto__') {
    target[key] = value;
    return;
  }
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export function typesOf(schema: Json): string[] | undefined {
  const type = schema.type;
  const list = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  const known = list?.filter(
    (item): item is string => typeof item === 'string' && JSON_TYPES.has(item),
  );
  return known === undefined || known.length === 0 ? undefined : [...new Set(known)];
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function acceptsNull(schema: Json): boolean {
  // A nullable type narrowed by an enum or a const without null still refuses null; an enum or
  // const with null and no type takes it.
  const type = schema.type;
  if (Array.isArray(schema.enum)) {
    if (!schema.enum.includes(null)) return false;
    if (type === undefined) return true;
  }
  if (schema.const !== undefined) {
    if (schema.const !== null) return false;
    if (type === undefined) return true;
  }
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.anyOf))
    return schema.anyOf.some((b) => isPlainObject(b) && acceptsNull(b));
  return false;
}

/** The schema, also accepting `null`: strict mode's way of saying "optional". */
export function nullable(schema: Json): Json {
  const type = schema.type;
  if (typeof type === 'string' || Array.isArray(type)) {
    const types: unknown[] = Array.isArray(type) ? type : [type];
    const copy: Json = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema.enum)) put(copy, 'enum', [...(schema.enum as unknown[]), null]);
    if (schema.anyOf !== undefined) return { anyOf: [schema, { type: 'null' }] };
    return copy;
  }
  if (Array.isArray(schema.anyOf))
    return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: 'null' }] };
  return { anyOf: [schema, { type: 'null' }] };
}

export function unite(a: Plan | undefined, b: Plan): Plan {
  if (a === undefined) return b;
  const united: Plan = a.json === true || b.json === true ? { json: true } : {};
  const items =
    a.items === undefined ? b.items : b.items === undefined ? a.items : unite(a.items, b.items);
  if (items !== undefined) united.items = items;
  if (a.props !== undefined || b.props !== undefined) {
    const props = new Map(a.props);
    for (const [key, rule] of b.props ?? []) {
      const mine = props.get(key);
      if (mine === undefined) props.set(key, rule);
      else {
        const inner =
          mine.inner === undefined
            ? rule.inner
            : rule.inner === undefined
              ? mine.inner
              : unite(mine.inner, rule.inner);
        const united: { dropNull: boolean; inner?: Plan; clash?: true } = {
          dropNull: mine.dropNull || rule.dropNull,
        };
        if (inner !== undefined) united.inner = inner;
        if (mine.dropNull !== rule.dropNull || mine.clash || rule.clash) united.clash = true;
        props.set(key, united);
      }
    }
    united.props = props;
  }
  return united;
}

export function restore(value: unknown, plan: Plan): unknown {
  if (plan.json === true && typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      // Anything but an object stays text, for the runner's validation to report; so does an
      // object with an integer the parse changed.
      if (isPlainObject(parsed) && inexactInteger(value) === undefined) return parsed;
    } catch {
      return value;
    }
    return value;
  }
  if (Array.isArray(value)) {
    return plan.items === undefined
      ? value
      : value.map((item) => restore(item, plan.items as Plan));
  }
  if (!isPlainObject(value) || plan.props === undefined) return value;
  const copy: Json = {};
  for (const [key, item] of Object.entries(value)) {
    const rule = plan.props.get(key);
    if (rule === undefined) put(copy, key, item);
    else if (item === null && rule.dropNull) continue;
    else put(copy, key, rule.inner === undefined ? item : restore(item, rule.inner));
  }
  return copy;
}

/** The path of the first property whose union branches disagree about a null, if any. */
export function clashOf(plan: Plan | undefined, path = ''): string | undefined {
  if (plan === undefined) return undefined;
  const inItems = clashOf(plan.items, `${path}/items`);
  if (inItems !== undefined) return inItems;
  for (const [key, rule] of plan.props ?? []) {
    const at = `${path}/properties/${key}`;
    if (rule.clash) return at;
    const inner = clashOf(rule.inner, at);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** Merges one `allOf` branch into the schema: properties and required united, others kept. */
export function merge(into: Json, branch: Json, conflict: (key: string) => void): Json {
  const merged: Json = { ...into };
  for (const [key, value] of Object.entries(branch)) {
    if (key === EXPANDED || DROPPED.has(key)) continue;
    const current = merged[key];
    if (current === undefined) put(merged, key, value);
    else if (key === 'properties' && isPlainObject(current) && isPlainObject(value)) {
      const properties: Json = { ...current };
      // A property both declare must satisfy both: keeping only the first would let through
      // values the second refuses (an enum, a bound).
      for (const [name, sub] of Object.entries(value)) {
        const first = properties[name];
        if (!Object.hasOwn(properties, name)) put(properties, name, sub);
        else if (JSON.stringify(first) !== JSON.stringify(sub))
          put(properties, name, { allOf: [first, sub] });
      }
      put(merged, key, properties);
    } else if (key === 'required' && Array.isArray(current) && Array.isArray(value)) {
      put(merged, key, [...new Set([...(current as unknown[]), ...(value as unknown[])])]);
    } else if (key === 'description') continue;
    else if (JSON.stringify(current) !== JSON.stringify(value)) conflict(key);
  }
  return merged;
}

/** A local JSON Pointer reference (`#`, `#/$defs/x`) looked up in the root. */
export function pointer(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (ref === '#') break;
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(current) && !Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Json)[key];
  }
  return isPlainObject(current) || typeof current === 'boolean' ? current : undefined;
}

export function describe(schema: Json, text: string): string {
  return typeof schema.description === 'string' ? `${schema.description} ${text}` : text;
}

export function clip(value: unknown): string {
  // undefined for a value JSON cannot hold (a function never reaches here, but be total).
  const json = (JSON.stringify(value) as string | undefined) ?? String(value);
  return json.length <= MAX_NOTE_VALUE ? json : `${json.slice(0, MAX_NOTE_VALUE)}…`;
}

/** Whether a schema allows no value at all: `false`, or an empty `enum`. */
export function allowsNothing(schema: unknown): boolean {
  return (
    schema === false ||
    (isPlainObject(schema) && Array.isArray(schema.enum) && schema.enum.length === 0)
  );
}

/**
 * `schema` with its enum written for a target whose enums hold strings alone and whose schemas
 * each need a type (Gemini's): an enum's `null` taken out, said by `nullable: true` instead of
 * lost with the enum moved into the description; an untyped enum typed by its values (`[1, 2]` an
 * INTEGER, objects an OBJECT: as any scalar no value of an enum of objects could be sent).
 */
export function typedEnum(schema: Json): Json {
  const values: unknown = schema.enum;
  if (!Array.isArray(values)) return schema;
  const rest = values.filter((value) => value !== null);
  const nullable = rest.length < values.length;
  const { enum: _enum, ...others } = schema;
  const types = typesOf(schema);
  if (types !== undefined) {
    if (!nullable) return schema;
    // A null the type refuses is no value of the schema; one it allows is said by `nullable`.
    if (rest.length > 0) return { ...others, enum: rest };
    return types.includes('null') ? { ...others, type: 'null' } : schema;
  }
  if (nullable && rest.length === 0) return { ...others, type: 'null' };
  const kinds = new Set(rest.map(jsonType));
  // Integers among numbers are numbers.
  if (kinds.has('number')) kinds.delete('integer');
  if (rest.length === 0) return schema;
  return { ...others, enum: rest, type: nullable ? [...kinds, 'null'] : [...kinds] };
}

/**
 * The most items an array whose `items` allow no value may hold: as many as its tuple has
 * (`prefixItems`), or its own `maxItems` when lower.
 */
export function mostItems(schema: Json): number {
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems.length : 0;
  const own = schema.maxItems;
  return typeof own === 'number' && own < tuple ? own : tuple;
}

/**
 * A draft-07 tuple (`items` a list, `additionalItems` the items past it) as 2020-12 writes it:
 * `prefixItems`, and `items` for the rest, so both dialects are converted one way (the rest was
 * said only in the description, and `additionalItems: false` bounded nothing).
 */
export function asPrefixItems(schema: Json): Json {
  const { items, additionalItems, ...others } = schema;
  return {
    ...others,
    prefixItems: items,
    ...(additionalItems === undefined ? {} : { items: additionalItems }),
  };
}
