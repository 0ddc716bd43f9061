import { TZDate } from '@date-fns/tz';
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

const moment = z.object({
  iso: z.string().describe('ISO 8601 with the zone offset'),
  unix: z.number().describe('Seconds since 1970-01-01T00:00:00Z'),
  timeZone: z.string().describe('The IANA name of the zone, as Intl spells it'),
  date: z.string().describe('YYYY-MM-DD in the time zone'),
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
      'Adds a duration to a date in a time zone, calendar-aware: month ends clamp (Jan 31 + 1 month = Feb 28/29) and days stay days across daylight-saving changes. Negative amounts subtract.',
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
    }),
    output: moment,
    annotations: { readOnlyHint: true, openWorldHint: false },
    tags: ['time'],
    run: (input) => {
      const start = parseDate(input.date, zoneOf(input.timeZone), 'date');
      const amounts = Object.fromEntries(
        UNITS.flatMap((unit) => (input[unit] === undefined ? [] : [[unit, input[unit]]])),
      );
      return describeMoment(add(start, amounts));
    },
  });
}

/** The difference between two dates in one unit, plus a years-to-seconds breakdown. */
export function dateDiffTool() {
  return defineTool({
    name: 'date_diff',
    title: 'Difference between dates',
    description:
      'How far apart two dates are: whole units (truncated toward zero, negative when "to" is earlier) and a breakdown in years, months, days, hours, minutes and seconds.',
    input: z.strictObject({
      from: dateInput,
      to: dateInput,
      unit: z.enum(UNITS).default('days'),
      timeZone,
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
    run: ({ from, to, unit, timeZone }) => {
      const zone = zoneOf(timeZone);
      const start = parseDate(from, zone, 'from');
      const end = parseDate(to, zone, 'to');
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

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/** A date in `zone`: "now", a date (midnight there), or a date-time (local there unless it has an offset). */
function parseDate(text: string, zone: string, field: string): TZDate {
  const value = text.trim();
  if (value.toLowerCase() === 'now') return new TZDate(Date.now(), zone);
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/.exec(value);
  if (match !== null && !HAS_ZONE.test(value)) {
    const [y, mo, d, h, mi, s, ms] = match
      .slice(1)
      .map((part: string | undefined) => Number(part ?? 0));
    const date = new TZDate(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0, ms ?? 0, zone);
    if (date.getMonth() === (mo ?? 1) - 1 && date.getDate() === d) return date;
  } else if (!DATE_ONLY.test(value) && HAS_ZONE.test(value)) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return new TZDate(time, zone);
  }
  throw new ToolError(
    'invalid_argument',
    `${field}: ${JSON.stringify(text)} is not an ISO 8601 date or date-time (e.g. "2025-03-30" or "2025-03-30T12:00:00Z") nor "now"`,
  );
}

function describeMoment(date: TZDate): Moment {
  const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');
  const offset = -date.getTimezoneOffset();
  const utcOffset = `${offset < 0 ? '-' : '+'}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
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
