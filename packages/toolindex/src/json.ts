import { ToolError } from '@toolplane/toolmodel';

/** Nesting deeper than this is treated as a cycle or an abuse, not a tool definition. */
const MAX_DEPTH = 64;

/**
 * A deeply frozen copy of a JSON-like value. Properties whose value is `undefined` are left out,
 * as `JSON.stringify` would, so `{ a: undefined }` and `{}` copy to the same thing.
 *
 * Registration copies once and reads hand out the frozen copy: no caller, before or after
 * registering, can change what the index holds, and reads cost nothing.
 *
 * @throws {ToolError} `invalid_tool` for a cycle or nesting deeper than 64 levels.
 */
export function frozenCopy<T>(value: T): T {
  return copy(value, 0) as T;
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_DEPTH) {
    throw new ToolError(
      'invalid_tool',
      `tool definition is nested deeper than ${MAX_DEPTH} levels (or is cyclic); tools must be plain JSON`,
    );
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], depth + 1);
    return Object.freeze(out);
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    // Assigning `__proto__` would set the copy's prototype instead of keeping the key.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: copy(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = copy(item, depth + 1);
    }
  }
  return Object.freeze(out);
}

/**
 * Deep structural equality of two values produced by {@link frozenCopy}: objects compare by
 * their keys in any order, arrays by position, everything else with `Object.is` semantics for
 * numbers (`NaN` equals `NaN`).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (aIsArray) {
    const bArray = b as unknown[];
    if (a.length !== bArray.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bArray[i])) return false;
    return true;
  }
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  let count = 0;
  for (const key in aRecord) {
    if (!Object.hasOwn(aRecord, key)) continue;
    if (!Object.hasOwn(bRecord, key) || !jsonEqual(aRecord[key], bRecord[key])) return false;
    count++;
  }
  for (const key in bRecord) if (Object.hasOwn(bRecord, key)) count--;
  return count === 0;
}
