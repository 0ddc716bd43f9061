/** A JSON value: what YAML front matter, prompt input and JSON resources may hold. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Deepest nesting accepted in a JSON value. */
export const MAX_JSON_DEPTH = 64;

/**
 * Why `value` is not plain JSON data, or `undefined` when it is: only null, booleans, finite
 * numbers, strings, arrays and objects whose prototype is `Object.prototype` or `null`, without
 * cycles, `__proto__` keys or nesting deeper than {@link MAX_JSON_DEPTH}.
 *
 * @internal
 */
export function jsonProblem(value: unknown): string | undefined {
  return check(value, '', 0, new Set());
}

function check(value: unknown, path: string, depth: number, seen: Set<object>): string | undefined {
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
      return `${at} is a ${typeof value}, which is not JSON`;
  }
  if (value === null) return undefined;
  if (depth >= MAX_JSON_DEPTH) return `${at} is nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (seen.has(value)) return `${at} refers back to itself`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(value[i], `${path}/${i}`, depth + 1, seen);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (proto as { constructor?: { name?: unknown } }).constructor?.name;
      return `${at} is ${typeof kind === 'string' ? `a ${kind} instance` : 'an exotic object'}, not a plain object`;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return `${at} has a "__proto__" key`;
      const problem = check(item, `${path}/${key}`, depth + 1, seen);
      if (problem !== undefined) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}
