/**
 * JSON with object keys sorted and `undefined` members dropped, so equal values give equal text:
 * what a digest of arguments or a definition is taken over (approvals bound to their arguments,
 * request states sealed to their parameters).
 *
 * Values without JSON (`undefined`, functions) become `null`, as `JSON.stringify` writes them in
 * an array. A key named `__proto__` is kept as a key.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'null';
}
