import { format } from '@cfworker/json-schema';
import { isPlainObject } from './guards.js';
import { isUrlFormat } from './url-format.js';

const formats = format as Record<string, ((text: string) => boolean) | undefined>;

/**
 * Whether a subschema among `nodes` (every one @cfworker/json-schema can evaluate, as its
 * `lookup` holds them) asserts the `url` format: only such a schema's validation needs the swap
 * below.
 */
export function assertsUrlFormat(nodes: Iterable<unknown>): boolean {
  for (const node of nodes) if (isPlainObject(node) && node.format === 'url') return true;
  return false;
}

/**
 * Runs `validate` (a synchronous call of @cfworker/json-schema) with the `url` format checked by
 * {@link isUrlFormat}, which answers as the library's regular expression does but in linear time,
 * where that expression backtracks for seconds on a 40-character value. The library looks formats
 * up in the `format` table it exports and has no option for another check, so the table's `url`
 * entry is swapped for the length of the call, and only then: other code that uses the library
 * in the same process keeps its table as it was; `urls` false (the schema asserts no `url`) skips
the swap. Where the table cannot be written (frozen), the
 * library's own check runs, as before.
 */
export function withLinearFormats<T>(urls: boolean, validate: () => T): T {
  if (!urls) return validate();
  const outer = formats.url;
  if (outer === isUrlFormat) return validate();
  try {
    formats.url = isUrlFormat;
  } catch {
    return validate();
  }
  try {
    return validate();
  } finally {
    formats.url = outer;
  }
}
