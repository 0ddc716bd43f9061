import { search } from 'jmespath';
import { syntaxError } from './json-format.js';

/** What a query in a worker answers: its result as JSON text, or why it has none. */
export type QueryOutcome =
  | { readonly ok: true; readonly json: string }
  | {
      readonly ok: false;
      readonly code: 'invalid_argument' | 'resource_exhausted';
      readonly message: string;
    };

// The prototype of the document's objects: jmespath reads a field as `object[name]`, which on a
// plain object finds `constructor`, `toString` or `__proto__` of Object.prototype (a function, or
// Object.prototype itself) where the document has no such key. Only `hasOwnProperty` stays, which
// jmespath's own truthiness test calls.
const OWN_ONLY: object = Object.freeze(
  Object.create(null, {
    hasOwnProperty: {
      value: function hasOwnProperty(this: object, key: PropertyKey): boolean {
        return Object.hasOwn(this, key);
      },
    },
  }) as object,
);

/** A parsed JSON value copied with every object on {@link OWN_ONLY}; a loop, not recursion. */
function ownOnly(value: unknown): unknown {
  const copy = (item: unknown): unknown => {
    if (typeof item !== 'object' || item === null) return item;
    const made: unknown = Array.isArray(item) ? [] : Object.create(OWN_ONLY);
    pending.push([item as Record<string, unknown>, made as Record<string, unknown>]);
    return made;
  };
  const pending: [Record<string, unknown>, Record<string, unknown>][] = [];
  const root = copy(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, to] = next;
    // No `__proto__` setter on OWN_ONLY's chain: every key becomes an own property.
    for (const key of Object.keys(from)) to[key] = copy(from[key]);
  }
  return root;
}

const tooDeep = (what: string): QueryOutcome => ({
  ok: false,
  code: 'resource_exhausted',
  message: `${what} is nested too deeply to query: query a part of the document`,
});

/**
 * Runs a JMESPath `expression` over the JSON text `document` and answers the result as JSON text
 * of at most `maxResultLength` characters. Meant for a worker: the work an expression asks for is
 * bounded only by the memory and time of the thread it runs on.
 */
export function queryJson(
  document: string,
  expression: string,
  maxResultLength: number,
): QueryOutcome {
  let data: unknown;
  try {
    data = ownOnly(JSON.parse(document));
  } catch (error) {
    return { ok: false, code: 'invalid_argument', message: syntaxError(document, error) };
  }
  let result: unknown;
  try {
    result = search(data as Parameters<typeof search>[0], expression);
  } catch (error) {
    if (error instanceof RangeError) return tooDeep('the document or the expression');
    return {
      ok: false,
      code: 'invalid_argument',
      message: `expression: not a valid JMESPath expression: ${(error as Error).message}`,
    };
  }
  let json: string;
  try {
    // A function (the `hasOwnProperty` above) is no JSON value: null, as a missing field is.
    const written = JSON.stringify(result ?? null) as string | undefined;
    json = written ?? 'null';
  } catch (error) {
    if (error instanceof RangeError) return tooDeep('the result');
    throw error;
  }
  if (json.length > maxResultLength) {
    return {
      ok: false,
      code: 'resource_exhausted',
      message: `the result is ${String(json.length)} characters of JSON, more than the ${String(maxResultLength)} allowed: select less (a projection, a filter, or length(...))`,
    };
  }
  return { ok: true, json };
}
