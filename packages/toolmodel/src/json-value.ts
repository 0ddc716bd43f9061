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
  return check(value, '', 0, new Set(), {
    undefinedMembers: options.undefinedMembers === true,
    protoKeys: options.protoKeys === true,
    maxDepth: options.maxDepth ?? MAX_JSON_DEPTH,
  });
}

function check(
  value: unknown,
  path: string,
  depth: number,
  seen: Set<object>,
  options: Required<JsonProblemOptions>,
): string | undefined {
  const at = path === '' ? 'the value' : path;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${at} is ${String(value)}, not a finite number`;
    case 'object':
      break;
    default:
      return `${at} is ${value === undefined ? 'undefined' : `a ${typeof value}`}, which is not JSON`;
  }
  if (value === null) return undefined;
  if (depth >= options.maxDepth) return `${at} is nested deeper than ${options.maxDepth} levels`;
  if (seen.has(value)) return `${at} refers back to itself`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(value[i], `${path}/${i}`, depth + 1, seen, options);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== null && Object.getPrototypeOf(proto) !== null) {
      const kind = Object.hasOwn(proto, 'constructor')
        ? (proto as { constructor?: { name?: unknown } }).constructor?.name
        : undefined;
      return `${at} is ${typeof kind === 'string' && kind !== '' ? `a ${kind} instance` : 'an object with a prototype of its own'}, not a plain object`;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__' && !options.protoKeys) return `${at} has a "__proto__" key`;
      if (item === undefined && options.undefinedMembers) continue;
      const problem = check(item, `${path}/${pointerToken(key)}`, depth + 1, seen, options);
      if (problem !== undefined) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}
