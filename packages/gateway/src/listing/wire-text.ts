// The JSON text of results sent again and again (a page of a big tools/list), made once: a
// transport writing a response whose result was remembered splices the text in instead of
// serialising the result anew (for a page of 1,000 tools, most of what answering it costs).

const remembered = new WeakMap<object, string>();

/**
 * Remembers `result`'s JSON text, for {@link messageJson}; returns `result`. The result must not
 * change afterwards (the text would no longer be its own).
 */
export function rememberJson<T extends object>(result: T): T {
  remembered.set(result, JSON.stringify(result));
  return result;
}

/**
 * `JSON.stringify(message)`, byte for byte, with the remembered text of its `result` (see
 * {@link rememberJson}) put in place of serialising it again.
 */
export function messageJson(message: object): string {
  const result = (message as { result?: unknown }).result;
  const text = typeof result === 'object' && result !== null ? remembered.get(result) : undefined;
  if (text === undefined) return JSON.stringify(message);
  let out = '';
  for (const key in message) {
    if (!Object.hasOwn(message, key)) continue;
    // As JSON.stringify: a member whose value has no JSON (undefined, a function) is left out.
    const json =
      key === 'result'
        ? text
        : (JSON.stringify((message as Record<string, unknown>)[key]) as string | undefined);
    if (json === undefined) continue;
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
  }
  return out === '' ? '{}' : `${out}}`;
}
