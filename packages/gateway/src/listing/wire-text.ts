// The JSON text of results sent again and again (a page of a big tools/list), made once: a
// transport writing a response whose result was remembered splices the text in instead of
// serialising the result anew (for a page of 1,000 tools, most of what answering it costs).

interface Remembered {
  readonly source: object;
  readonly text: string;
}

const remembered = new WeakMap<object, Remembered>();
// The same, by the result's first object member: the SDK hands the transport a shallow copy of
// a handler's result (with a symbol-keyed cache hint, which JSON leaves out).
const byMember = new WeakMap<object, Remembered>();

/**
 * Remembers `result`'s JSON text, for {@link messageJson}; returns `result`. Neither the result
 * nor its members may change afterwards (the text would no longer be theirs).
 */
export function rememberJson<T extends object>(result: T): T {
  const entry: Remembered = { source: result, text: JSON.stringify(result) };
  remembered.set(result, entry);
  const member = firstObjectMember(result);
  if (member !== undefined) byMember.set(member, entry);
  return result;
}

/**
 * `JSON.stringify(message)`, byte for byte, with the remembered text of its `result` (see
 * {@link rememberJson}) put in place of serialising it again: the result itself, or a shallow
 * copy of it with the same members (string-keyed, in the same order, the same values).
 */
export function messageJson(message: object): string {
  const text = textOf((message as { result?: unknown }).result);
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

/** The remembered text of `result` (or of the result it is a shallow copy of), if any. */
function textOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const own = remembered.get(result);
  if (own !== undefined) return own.text;
  const member = firstObjectMember(result);
  const copied = member === undefined ? undefined : byMember.get(member);
  return copied !== undefined && sameMembers(result, copied.source) ? copied.text : undefined;
}

function firstObjectMember(value: object): object | undefined {
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const member = (value as Record<string, unknown>)[key];
    if (typeof member === 'object' && member !== null) return member;
  }
  return undefined;
}

/** Whether `a` and `b` have the same own string-keyed members, in the same order, by identity. */
function sameMembers(a: object, b: object): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys: string[] = [];
  for (const key in right) if (Object.hasOwn(right, key)) keys.push(key);
  let at = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key)) continue;
    if (keys[at] !== key || left[key] !== right[key]) return false;
    at++;
  }
  return at === keys.length;
}
