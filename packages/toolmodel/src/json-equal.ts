/**
 * Deep structural equality of two JSON-like values: objects compare by their own keys in any
 * order, arrays by position, everything else by `===` (but `NaN` equals `NaN`). Cheaper than
 * comparing two `JSON.stringify` strings, and it makes no garbage: used where a value received
 * again and again (a request's `_meta`, a tool's definition) is checked against one seen before.
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
