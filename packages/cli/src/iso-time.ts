import { ToolError } from '@toolplane/toolkit';

// A date, or a date and a time of day (seconds and their fraction optional) with an optional
// zone; `T` or a space between them, as `Date.parse` reads both.
const ISO_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * `text` as epoch milliseconds, read as an ISO 8601 date (midnight UTC) or date-time (local time
 * unless it has a zone), as `Date.parse` reads those. Anything else is refused, where
 * `Date.parse` alone would guess: `5` is May 2001 to it, `Nov 5` the 5th of November 2001, and
 * `2026-02-30` the 2nd of March.
 *
 * @throws {ToolError} `invalid_argument` naming `flag` when `text` is not such a time, or names a
 * day or a time of day that does not exist.
 */
export function parseIsoTime(text: string, flag: string): number {
  const match = ISO_TIME.exec(text.trim());
  const time = match === null ? Number.NaN : Date.parse(text.trim());
  if (match === null || Number.isNaN(time) || !exists(match)) {
    throw new ToolError(
      'invalid_argument',
      `${flag} ${JSON.stringify(text)} is not a time; give ISO 8601, e.g. 2026-11-28 or 2026-11-28T09:00Z`,
    );
  }
  return time;
}

/** Whether the day and the time of day `match` names exist (no 30 February, no 24:30). */
function exists(match: RegExpExecArray): boolean {
  const [, year = '', month = '', day = '', hours = '0', minutes = '0', seconds = '0'] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  return (
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hours) <= 23 &&
    Number(minutes) <= 59 &&
    Number(seconds) <= 59
  );
}
