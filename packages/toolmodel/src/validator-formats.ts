import { format } from '@cfworker/json-schema';
import { isUrlFormat } from './url-format.js';

const formats = format as Record<string, ((text: string) => boolean) | undefined>;

/**
 * Runs `validate` (a synchronous call of @cfworker/json-schema) with the `url` format checked by
 * {@link isUrlFormat}, which answers as the library's regular expression does but in linear time,
 * where that expression backtracks for seconds on a 40-character value. The library looks formats
 * up in the `format` table it exports and has no option for another check, so the table's `url`
 * entry is swapped for the length of the call, and only then: other code that uses the library
 * in the same process keeps its table as it was. Where the table cannot be written (frozen), the
 * library's own check runs, as before.
 */
export function withLinearFormats<T>(validate: () => T): T {
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
