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

// Lives in toolmodel, the lowest layer, since the gateway compares JSON the same way.
export { jsonEqual } from '@toolplane/toolmodel';
