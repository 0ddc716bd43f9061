import { search } from 'jmespath';

/** What a query in a worker answers: its result as JSON text, or why it has none. */
export type QueryOutcome =
  { readonly ok: true; readonly json: string } | { readonly ok: false; readonly message: string };

/**
 * Runs a JMESPath `expression` over `document` and answers the result as JSON text of at most
 * `maxResultLength` characters. Meant for a worker: the work an expression asks for is bounded
 * only by the memory and time of the thread it runs on.
 */
export function queryJson(
  document: unknown,
  expression: string,
  maxResultLength: number,
): QueryOutcome {
  let result: unknown;
  try {
    result = search(document as Parameters<typeof search>[0], expression);
  } catch (error) {
    return {
      ok: false,
      message: `expression: not a valid JMESPath expression: ${(error as Error).message}`,
    };
  }
  const json = JSON.stringify(result ?? null);
  if (json.length > maxResultLength) {
    return {
      ok: false,
      message: `the result is ${String(json.length)} characters of JSON, more than the ${String(maxResultLength)} allowed: select less (a projection, a filter, or length(...))`,
    };
  }
  return { ok: true, json };
}
