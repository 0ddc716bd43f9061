import { TZDate } from '@date-fns/tz';
import { defineTool, ToolError, type DefinedTool } from '@toolplane/toolkit';
import {
  add,
  differenceInDays,
  differenceInHours,
  differenceInMinutes,
  differenceInMonths,
  differenceInSeconds,
  differenceInWeeks,
  differenceInYears,
  intervalToDuration,
} from 'date-fns';
import { z } from 'zod';
import { cached } from './cached.js';
import { countOnWorker, queryOnWorker } from './heavy/pool.js';
import { countText } from './heavy/text-stats.js';

/** Bounds of the builtins' input and output: one caller must not hold a shared gateway. */
export const BUILTIN_LIMITS = Object.freeze({
  /** Longest JMESPath expression `json_query` takes. */
  expressionLength: 4_096,
  /** Longest JSON text of a `json_query` result. */
  queryResultLength: 1_000_000,
  /** Longest text `text_stats` counts. */
  textLength: 1_000_000,
  /** Texts up to this length are counted on the calling thread: faster than a worker's round trip. */
  inlineTextLength: 8_192,
});

const timeZone = z
  .string()
  .refine(isTimeZone, 'must be an IANA time zone such as "Europe/Paris" or "UTC"')
  .default('UTC')
  .describe('IANA time zone, e.g. "America/New_York"');

const dateInput = z
  .string()
  .describe('An ISO 8601 date or date-time ("2025-03-30", "2025-03-30T12:00:00Z") or "now"');

const moment = z.object({
  iso: z.string().describe('ISO 8601 with the zone offset'),
  unix: z.number().describe('Seconds since 1970-01-01T00:00:00Z'),
  timeZone: z.string(),
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
export const timeNow = defineTool({
  name: 'time_now',
  title: 'Current time',
  description:
    'The current date and time in a time zone (default UTC): ISO 8601, Unix seconds, local date, time, weekday and UTC offset. Use it instead of guessing today\u2019s date.',
  input: z.object({ timeZone }),
  output: moment,
  annotations: { readOnlyHint: true, openWorldHint: false },
  tags: ['time'],
  run: ({ timeZone }) => describeMoment(new TZDate(Date.now(), timeZone)),
});

/** Calendar arithmetic: adds (or with negative amounts, subtracts) a duration to a date. */
export const dateAdd = defineTool({
  name: 'date_add',
  title: 'Add to a date',
  description:
    'Adds a duration to a date in a time zone, calendar-aware: month ends clamp (Jan 31 + 1 month = Feb 28/29) and days stay days across daylight-saving changes. Negative amounts subtract.',
  input: z.object({
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
    const start = parseDate(input.date, input.timeZone, 'date');
    const amounts = Object.fromEntries(
      UNITS.flatMap((unit) => (input[unit] === undefined ? [] : [[unit, input[unit]]])),
    );
    return describeMoment(add(start, amounts));
  },
});

/** The difference between two dates in one unit, plus a years-to-seconds breakdown. */
export const dateDiff = defineTool({
  name: 'date_diff',
  title: 'Difference between dates',
  description:
    'How far apart two dates are: whole units (truncated toward zero, negative when "to" is earlier) and a breakdown in years, months, days, hours, minutes and seconds.',
  input: z.object({
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
    const start = parseDate(from, timeZone, 'from');
    const end = parseDate(to, timeZone, 'to');
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

/** Queries JSON with a JMESPath expression. */
export const jsonQuery = defineTool({
  name: 'json_query',
  title: 'Query JSON',
  description:
    'Extracts and reshapes data from JSON with a JMESPath expression, e.g. "items[?price > `10`].name | sort(@)". Pass the document as a value in "data" or as text in "json".',
  input: z
    .object({
      expression: z
        .string()
        .min(1)
        .max(
          BUILTIN_LIMITS.expressionLength,
          `at most ${String(BUILTIN_LIMITS.expressionLength)} characters`,
        )
        .describe('A JMESPath expression'),
      data: z.unknown().optional().describe('The JSON document, as a value'),
      json: z.string().optional().describe('The JSON document, as text'),
    })
    .refine((v) => (v.data === undefined) !== (v.json === undefined), {
      message: 'pass exactly one of "data" and "json"',
      path: ['data'],
    }),
  output: z.object({ result: z.unknown() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  tags: ['json'],
  // A 300-byte expression can ask for 10^8 values: every query runs on a worker thread, bounded in
  // time and memory, and its result in size.
  run: async ({ expression, data, json }, { signal }) => {
    const document: unknown = json === undefined ? data : parseJson(json).value;
    const result = await queryOnWorker(
      document,
      expression,
      BUILTIN_LIMITS.queryResultLength,
      signal,
    );
    return { result: JSON.parse(result) as unknown };
  },
});

/** Validates and pretty-prints (or minifies) JSON text, optionally with sorted keys. */
export const jsonFormat = defineTool({
  name: 'json_format',
  title: 'Format JSON',
  description:
    'Checks that text is valid JSON (reporting line and column of the first error) and re-prints it indented (default 2 spaces, 0 to minify), optionally with object keys sorted.',
  input: z.object({
    json: z.string().describe('JSON text'),
    indent: z.number().int().min(0).max(8).default(2),
    sortKeys: z.boolean().default(false),
  }),
  output: z.object({ text: z.string(), bytes: z.number() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  tags: ['json'],
  run: ({ json, indent, sortKeys }) => {
    const { value } = parseJson(json);
    const text = JSON.stringify(sortKeys ? sortDeep(value) : value, null, indent);
    return { text, bytes: Buffer.byteLength(text) };
  },
});

/** Counts characters, words, sentences, lines and paragraphs, and estimates reading time. */
export const textStats = defineTool({
  name: 'text_stats',
  title: 'Text statistics',
  description:
    'Counts a text\u2019s characters (as people see them), UTF-8 bytes, words, sentences, lines and paragraphs with Unicode segmentation for a locale, and estimates reading time at 238 words a minute.',
  input: z.object({
    text: z
      .string()
      .max(
        BUILTIN_LIMITS.textLength,
        `at most ${String(BUILTIN_LIMITS.textLength)} characters; count a part at a time`,
      ),
    locale: z
      .string()
      .max(64)
      .default('en')
      .describe('BCP 47 language tag used to find word boundaries'),
  }),
  output: z.object({
    characters: z.number(),
    bytes: z.number(),
    words: z.number(),
    sentences: z.number(),
    lines: z.number(),
    paragraphs: z.number(),
    readingMinutes: z.number(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  tags: ['text'],
  run: async ({ text, locale }, { signal }) => {
    if (text.length > BUILTIN_LIMITS.inlineTextLength) {
      return countOnWorker(text, locale, signal);
    }
    try {
      return countText(text, locale);
    } catch (error) {
      throw new ToolError('invalid_argument', `locale: ${(error as Error).message}`, {
        cause: error,
      });
    }
  },
});

/** Every builtin tool the CLI serves unless the config says `builtins: false`. */
export const builtinTools: readonly DefinedTool[] = [
  timeNow,
  dateAdd,
  dateDiff,
  jsonQuery,
  jsonFormat,
  textStats,
];

const weekdayFormats = new Map<string, Intl.DateTimeFormat>();

/** Formats a weekday in `zone`; throws a RangeError for an unknown zone. */
function weekdayFormat(zone: string | undefined): Intl.DateTimeFormat {
  return cached(
    weekdayFormats,
    zone ?? '',
    () => new Intl.DateTimeFormat('en', { weekday: 'long', timeZone: zone }),
  );
}

function isTimeZone(zone: string): boolean {
  try {
    weekdayFormat(zone);
    return true;
  } catch {
    return false;
  }
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
  const weekday = weekdayFormat(date.timeZone).format(date);
  return {
    iso: `${day}T${time}${utcOffset}`,
    unix: Math.floor(date.getTime() / 1000),
    timeZone: date.timeZone ?? 'UTC',
    date: day,
    time,
    weekday,
    utcOffset,
  };
}

function parseJson(text: string): { value: unknown } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message)?.[1];
    let where = '';
    if (at !== undefined) {
      const before = text.slice(0, Number(at)).split('\n');
      where = ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
    }
    throw new ToolError('invalid_argument', `json: not valid JSON${where}: ${message}`, {
      cause: error,
    });
  }
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortDeep((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
