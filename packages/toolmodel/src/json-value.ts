import { pointerToken } from './errors.js';

/** A JSON value: what tool arguments, YAML front matter, prompt input and JSON resources may hold. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Deepest nesting accepted in a JSON value. */
export const MAX_JSON_DEPTH = 64;

/** Options of {@link jsonProblem}. */
export interface JsonProblemOptions {
  /**
   * Whether an object member may be `undefined` (default false): JSON text leaves such a member
   * out, so it means what an absent one means (tool arguments built in JavaScript, `{ limit:
   * options.limit }`, have them). An `undefined` array item is refused still: JSON would make it
   * `null`.
   */
  readonly undefinedMembers?: boolean;
  /**
   * Whether an object may have an own `__proto__` member (default false). JSON text may (and
   * `JSON.parse` makes it an own member); where a value is merged into objects it is refused.
   */
  readonly protoKeys?: boolean;
  /** Deepest nesting accepted; default {@link MAX_JSON_DEPTH}. */
  readonly maxDepth?: number;
}

/**
 * Why `value` is not plain JSON data, or `undefined` when it is: only null, booleans, finite
 * numbers, strings, arrays and plain objects (whose prototype is `null` or an `Object.prototype`,
 * of this realm or another: a `vm` context's, a worker's), without cycles, `__proto__` keys or
 * nesting deeper than {@link MAX_JSON_DEPTH} (see the options). The problem names where it is as
 * a JSON Pointer (`/when is a Date instance, not a plain object`).
 */
export function jsonProblem(value: unknown, options: JsonProblemOptions = {}): string | undefined {
  const walk: Walk = {
    undefinedMembers: options.undefinedMembers === true,
    protoKeys: options.protoKeys === true,
    maxDepth: options.maxDepth ?? MAX_JSON_DEPTH,
    ancestors: [],
    keys: [],
  };
  const problem = check(value, walk);
  if (problem === undefined) return undefined;
  const at = walk.keys.length === 0 ? 'the value' : `/${walk.keys.map(pointerToken).join('/')}`;
  return `${at} ${problem}`;
}

/**
 * Whether `value` is plain JSON data as {@link jsonProblem} defines it, answered without
 * allocating: a value checked on every call (tool arguments) takes this path, and only a value
 * it refuses is walked again by {@link jsonProblem} to name the problem. A cycle is refused here
 * by the depth it reaches.
 */
export function isJsonData(value: unknown, options: JsonProblemOptions = {}): boolean {
  return plain(
    value,
    options.maxDepth ?? MAX_JSON_DEPTH,
    options.undefinedMembers === true,
    options.protoKeys === true,
  );
}

function plain(
  value: unknown,
  depth: number,
  undefinedMembers: boolean,
  protoKeys: boolean,
): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth === 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!plain(value[i], depth - 1, undefinedMembers, protoKeys)) return false;
    }
    return true;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== Object.prototype && proto !== null && Object.getPrototypeOf(proto) !== null) {
    return false;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key === '__proto__' && !protoKeys) return false;
    const item = record[key];
    if (item === undefined && undefinedMembers) continue;
    if (!plain(item, depth - 1, undefinedMembers, protoKeys)) return false;
  }
  return true;
}

/**
 * A walk of {@link jsonProblem}: its options, the objects it is inside of (a cycle comes back to
 * one) and the keys leading to the value checked (the problem's place, named only when there is
 * a problem: a walk of JSON data builds no string).
 */
interface Walk {
  readonly undefinedMembers: boolean;
  readonly protoKeys: boolean;
  readonly maxDepth: number;
  readonly ancestors: object[];
  readonly keys: (string | number)[];
}

/** What is wrong with `value` (the end of a sentence naming its place), or undefined. */
function check(value: unknown, walk: Walk): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `is ${String(value)}, not a finite number`;
    case 'object':
      break;
    default:
      return `is ${value === undefined ? 'undefined' : `a ${typeof value}`}, which is not JSON`;
  }
  if (value === null) return undefined;
  const { ancestors, keys } = walk;
  if (ancestors.length >= walk.maxDepth) return `is nested deeper than ${walk.maxDepth} levels`;
  if (ancestors.includes(value)) return 'refers back to itself';
  if (Array.isArray(value)) {
    ancestors.push(value);
    for (let i = 0; i < value.length; i++) {
      keys.push(i);
      const problem = check(value[i], walk);
      if (problem !== undefined) return problem;
      keys.pop();
    }
    ancestors.pop();
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null && Object.getPrototypeOf(proto) !== null) {
    const kind = Object.hasOwn(proto, 'constructor')
      ? (proto as { constructor?: { name?: unknown } }).constructor?.name
      : undefined;
    return `is ${typeof kind === 'string' && kind !== '' ? `a ${kind} instance` : 'an object with a prototype of its own'}, not a plain object`;
  }
  ancestors.push(value);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key === '__proto__' && !walk.protoKeys) return 'has a "__proto__" key';
    const item = record[key];
    if (item === undefined && walk.undefinedMembers) continue;
    keys.push(key);
    const problem = check(item, walk);
    if (problem !== undefined) return problem;
    keys.pop();
  }
  ancestors.pop();
  return undefined;
}
