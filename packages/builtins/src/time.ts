import { TZDate, tzOffset } from '@date-fns/tz';
import { defineTool, ToolError } from '@toolplane/toolkit';
// One module per function: date-fns' index loads every one of its ~860 modules, which cost every
// process that only lists the builtin tools (`toolplane tools list`) a good part of its start.
import { add } from 'date-fns/add';
import { differenceInDays } from 'date-fns/differenceInDays';
import { differenceInHours } from 'date-fns/differenceInHours';
import { differenceInMinutes } from 'date-fns/differenceInMinutes';
import { differenceInMonths } from 'date-fns/differenceInMonths';
import { differenceInSeconds } from 'date-fns/differenceInSeconds';
import { differenceInWeeks } from 'date-fns/differenceInWeeks';
import { differenceInYears } from 'date-fns/differenceInYears';
import { intervalToDuration } from 'date-fns/intervalToDuration';
import { z } from 'zod';
import { boundedCache, cached } from './cached.js';
import { BUILTIN_LIMITS } from './limits.js';

const timeZone = z
  .string()
  .max(BUILTIN_LIMITS.nameLength)
  .refine((zone) => canonicalZone(zone) !== undefined, {
    message: 'must be an IANA time zone such as "Europe/Paris" or "UTC"',
  })
  .default('UTC')
  .describe('IANA time zone, e.g. "America/New_York"');

const dateInput = z
  .string()
  .max(BUILTIN_LIMITS.nameLength)
  .describe('An ISO 8601 date or date-time ("2025-03-30", "2025-03-30T12:00:00Z") or "now"');

const DISAMBIGUATIONS = ['compatible', 'earlier', 'later', 'reject'] as const;
type Disambiguation = (typeof DISAMBIGUATIONS)[number];

// Temporal's option, with its default: RFC 5545 and Temporal both read a skipped time as the
// later instant and a repeated one as the earlier, which is what a calendar user expects.
const disambiguation = z
  .enum(DISAMBIGUATIONS)
  .default('compatible')
  .describe(
    'A local time that daylight saving skips or repeats: "compatible" (default; skipped: moved forward by the gap, repeated: the first), "earlier", "later", or "reject" (an error)',
  );

const moment = z.object({
  iso: z.string().describe('ISO 8601 with the zone offset'),
  unix: z.number().describe('Seconds since 1970-01-01T00:00:00Z'),
  timeZone: z.string().describe('The IANA name of the zone, as Intl spells it'),
  date: z
    .string()
    .describe('YYYY-MM-DD in the time zone (±YYYYYY-MM-DD outside the years 0000–9999)'),
  time: z.string().describe('HH:MM:SS in the time zone'),
  weekday: z.string(),
  utcOffset: z.string().describe('e.g. +02:00'),
});

type Moment = z.infer<typeof moment>;

const UNITS = ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds'] as const;
type Unit = (typeof UNITS)[number];

const DIFFERENCE: Record<Unit, (later: Date, earlier: Date) => number> = {
  years: differenceInYears,
  months: differenceInMonths,
  weeks: differenceInWeeks,
  days: differenceInDays,
  hours: differenceInHours,
  minutes: differenceInMinutes,
  seconds: differenceInSeconds,
};

/** The current time in a time zone, with its date, time, weekday and UTC offset. */
export function timeNowTool() {
  return defineTool({
    name: 'time_now',
    title: 'Current time',
    description:
      'The current date and time in a time zone (default UTC): ISO 8601, Unix seconds, local date, time, weekday and UTC offset. Use it instead of guessing today\u2019s date.',
    input: z.strictObject({ timeZone }),
    output: moment,
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['time'],
    run: ({ timeZone }) => describeMoment(new TZDate(Date.now(), zoneOf(timeZone))),
  });
}

/** Calendar arithmetic: adds (or with negative amounts, subtracts) a duration to a date. */
export function dateAddTool() {
  return defineTool({
    name: 'date_add',
    title: 'Add to a date',
    description:
      'Adds a duration to a date in a time zone, calendar-aware: month ends clamp (Jan 31 + 1 month = Feb 28/29) and days stay days across daylight-saving changes (years to days move the local date and time; hours, minutes and seconds are elapsed time). Negative amounts subtract. A local time that daylight saving skips or repeats follows "disambiguation".',
    input: z.strictObject({
      date: dateInput,
      years: z.number().int().optional(),
      months: z.number().int().optional(),
      weeks: z.number().int().optional(),
      days: z.number().int().optional(),
      hours: z.number().int().optional(),
      minutes: z.number().int().optional(),
      seconds: z.number().int().optional(),
      timeZone,
      disambiguation,
    }),
    output: moment,
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['time'],
    run: (input) => {
      const zone = zoneOf(input.timeZone);
      const start = parseDate(input.date, zone, 'date', input.disambiguation);
      const amounts = (units: readonly Unit[]): Partial<Record<Unit, number>> => {
        const picked: Partial<Record<Unit, number>> = {};
        for (const unit of units) {
          const amount = input[unit];
          if (amount !== undefined && amount !== 0) picked[unit] = amount;
        }
        return picked;
      };
      const calendar = amounts(['years', 'months', 'weeks', 'days']);
      let date = start;
      if (Object.keys(calendar).length > 0) {
        // Calendar units move the wall clock (as Temporal does), in UTC where no hour is skipped,
        // and the local time they reach is placed by the same rule as the input's.
        const wall = add(
          new TZDate(start.getTime() + tzOffset(zone, start) * MINUTE, 'UTC'),
          calendar,
        );
        date = localTime(representable(wall).getTime(), zone, input.disambiguation, 'the result');
      }
      return describeMoment(representable(add(date, amounts(['hours', 'minutes', 'seconds']))));
    },
  });
}

/** The difference between two dates in one unit, plus a years-to-seconds breakdown. */
export function dateDiffTool() {
  return defineTool({
    name: 'date_diff',
    title: 'Difference between dates',
    description:
      'How far apart two dates are: whole units (truncated toward zero, negative when "to" is earlier) and a breakdown in years, months, days, hours, minutes and seconds. A local time that daylight saving skips or repeats follows "disambiguation".',
    input: z.strictObject({
      from: dateInput,
      to: dateInput,
      unit: z.enum(UNITS).default('days'),
      timeZone,
      disambiguation,
    }),
    output: z.object({
      value: z.number(),
      unit: z.enum(UNITS),
      breakdown: z.record(z.string(), z.number()),
      from: z.string(),
      to: z.string(),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['time'],
    run: ({ from, to, unit, timeZone, disambiguation }) => {
      const zone = zoneOf(timeZone);
      const start = parseDate(from, zone, 'from', disambiguation);
      const end = parseDate(to, zone, 'to', disambiguation);
      const value = DIFFERENCE[unit](end, start);
      const [earlier, later] = start <= end ? [start, end] : [end, start];
      const sign = start <= end ? 1 : -1;
      const breakdown = Object.fromEntries(
        Object.entries(intervalToDuration({ start: earlier, end: later })).map(([k, v]) => [
          k,
          sign * v,
        ]),
      );
      return {
        value: value === 0 ? 0 : value,
        unit,
        breakdown,
        from: start.toISOString(),
        to: end.toISOString(),
      };
    },
  });
}

// Spellings seen lately, to the zone Intl resolves them to; @date-fns/tz keeps a formatter per
// zone name it is given, for good, so it is only ever given resolved names (a few hundred exist).
const zoneNames = boundedCache<string>(256);
const weekdayFormats = boundedCache<Intl.DateTimeFormat>(64);

/** The IANA name Intl resolves `spelling` to (`europe/paris`: `Europe/Paris`), if it is a zone. */
function canonicalZone(spelling: string): string | undefined {
  try {
    // Zone names match case-insensitively (ECMA-402), so case spellings share one entry.
    return cached(
      zoneNames,
      spelling.toLowerCase(),
      () => new Intl.DateTimeFormat('en', { timeZone: spelling }).resolvedOptions().timeZone,
    );
  } catch {
    return undefined;
  }
}

/** The resolved name of a zone the input schema has already accepted. */
function zoneOf(spelling: string): string {
  return canonicalZone(spelling) ?? 'UTC';
}

/** Formats a weekday in `zone`, a resolved zone name. */
function weekdayFormat(zone: string): Intl.DateTimeFormat {
  return cached(
    weekdayFormats,
    zone,
    () => new Intl.DateTimeFormat('en', { weekday: 'long', timeZone: zone }),
  );
}

const DATE_ONLY = /^(?:[+-]\d{6}|\d{4})-\d{2}-\d{2}$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const LOCAL =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;

/**
 * A date in `zone`: "now", a date (midnight there), or a date-time (local there unless it has an
 * offset); a local time that daylight saving skips or repeats is placed by `rule`.
 */
function parseDate(text: string, zone: string, field: string, rule: Disambiguation): TZDate {
  const value = text.trim();
  if (value.toLowerCase() === 'now') return new TZDate(Date.now(), zone);
  const match = LOCAL.exec(value);
  if (match !== null && !HAS_ZONE.test(value)) {
    const [yearText = '', ...rest] = match.slice(1);
    const [month = 1, day = 1, hours = 0, minutes = 0, seconds = 0] = rest
      .slice(0, 5)
      .map((part: string | undefined) => Number(part ?? 0));
    // A fraction of a second: ".5" is 500 ms.
    const millis = Number((rest[5] ?? '').padEnd(3, '0'));
    const y = Number(yearText);
    // Out-of-range fields would roll over (12:60 is 13:00) rather than fail.
    if (hours > 23 || minutes > 59 || seconds > 59) {
      throw new ToolError(
        'invalid_argument',
        `${field}: ${JSON.stringify(text)} has no such time of day (hours 00–23, minutes and seconds 00–59; leap seconds are not counted)`,
      );
    }
    // The wall clock as if it were UTC; setUTCFullYear, as Date.UTC reads years 0–99 as 1900–1999.
    const wall = new Date(0);
    wall.setUTCFullYear(y, month - 1, day);
    wall.setUTCHours(hours, minutes, seconds, millis);
    if (
      wall.getUTCFullYear() === y &&
      wall.getUTCMonth() === month - 1 &&
      wall.getUTCDate() === day
    ) {
      return localTime(wall.getTime(), zone, rule, field);
    }
  } else if (!DATE_ONLY.test(value) && HAS_ZONE.test(value)) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return new TZDate(time, zone);
  }
  throw new ToolError(
    'invalid_argument',
    `${field}: ${JSON.stringify(text)} is not an ISO 8601 date or date-time (e.g. "2025-03-30" or "2025-03-30T12:00:00Z") nor "now"`,
  );
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const LAST_MS = 8.64e15;

/**
 * The instant at which `zone`'s clocks read `wall` (that reading's milliseconds as if UTC), as
 * Temporal's `disambiguation` places it: a reading the clocks skip is moved by the gap (forward
 * for "compatible" and "later", back for "earlier"); one they show twice is the first
 * ("compatible", "earlier") or the second ("later"); "reject" refuses both with `invalid_argument`.
 */
function localTime(wall: number, zone: string, rule: Disambiguation, field: string): TZDate {
  // The offsets a day either side: no zone has changed its clocks twice within two days.
  const offsetAt = (time: number) =>
    tzOffset(zone, new Date(Math.min(LAST_MS, Math.max(-LAST_MS, time)))) * MINUTE;
  const before = offsetAt(wall - DAY);
  const after = offsetAt(wall + DAY);
  const fits = [...new Set([wall - before, wall - after])]
    .filter((time) => offsetAt(time) === wall - time)
    .sort((a, b) => a - b);
  const [first, second] = fits;
  if (first !== undefined && (second === undefined || rule !== 'later')) {
    if (second !== undefined && rule === 'reject') throw ambiguous(field, wall, zone, 'repeats');
    return new TZDate(first, zone);
  }
  if (second !== undefined) return new TZDate(second, zone);
  if (rule === 'reject') throw ambiguous(field, wall, zone, 'skips');
  return new TZDate(rule === 'earlier' ? wall - after : wall - before, zone);
}

function ambiguous(field: string, wall: number, zone: string, what: string): ToolError {
  const reading = new Date(wall).toISOString().slice(0, 19);
  return new ToolError(
    'invalid_argument',
    `${field}: ${zone} ${what} the local time ${reading} (its clocks change then: daylight saving or a new offset): give an offset, or a "disambiguation" other than "reject"`,
  );
}

/** `date`, or an `invalid_argument` error when arithmetic took it past the dates JavaScript has. */
function representable(date: TZDate): TZDate {
  if (Number.isNaN(date.getTime())) {
    throw new ToolError(
      'invalid_argument',
      'the result is outside the dates this tool can represent (about 275,000 years either side of 1970): add a smaller amount',
    );
  }
  return date;
}

/** A year as ISO 8601 writes it: four digits, or a sign and six digits outside 0000–9999. */
function isoYear(year: number): string {
  const digits = String(Math.abs(year));
  if (year >= 0 && year <= 9999) return digits.padStart(4, '0');
  return `${year < 0 ? '-' : '+'}${digits.padStart(6, '0')}`;
}

function describeMoment(date: TZDate): Moment {
  const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const utcOffset = `${offset < 0 ? '-' : '+'}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
  const day = `${isoYear(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  const zone = date.timeZone ?? 'UTC';
  return {
    iso: `${day}T${time}${utcOffset}`,
    unix: Math.floor(date.getTime() / 1000),
    timeZone: zone,
    date: day,
    time,
    weekday: weekdayFormat(zone).format(date),
    utcOffset,
  };
}
