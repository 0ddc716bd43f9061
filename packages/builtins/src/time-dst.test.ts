import { createToolkit } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinTools } from './builtins.js';
import { builtinCalls } from './testing/calls.js';

const tools = builtinTools({ only: ['date_add', 'date_diff'] });
const toolkit = createToolkit({ tools });
afterAll(async () => {
  await toolkit.close();
  await tools.close();
});

const { call, codeOf } = builtinCalls(toolkit);

/** The instant `date_add` reads `date` as, in `timeZone`, under `disambiguation` (if given). */
async function read(date: string, timeZone: string, disambiguation?: string): Promise<unknown> {
  const args = { date, timeZone, ...(disambiguation === undefined ? {} : { disambiguation }) };
  return (await call('date_add', args)).iso;
}

// [zone, a skipped local time, its readings: compatible/later, earlier]
const GAPS = [
  ['Europe/Paris', '2025-03-30T02:30', '2025-03-30T03:30:00+02:00', '2025-03-30T01:30:00+01:00'],
  [
    'America/New_York',
    '2025-03-09T02:30',
    '2025-03-09T03:30:00-04:00',
    '2025-03-09T01:30:00-05:00',
  ],
  [
    'Australia/Lord_Howe',
    '2025-10-05T02:15',
    '2025-10-05T02:45:00+11:00',
    '2025-10-05T01:45:00+10:30',
  ],
] as const;

// [zone, a repeated local time, its readings: compatible/earlier, later]
const OVERLAPS = [
  ['Europe/Paris', '2025-10-26T02:30', '2025-10-26T02:30:00+02:00', '2025-10-26T02:30:00+01:00'],
  [
    'America/New_York',
    '2025-11-02T01:30',
    '2025-11-02T01:30:00-04:00',
    '2025-11-02T01:30:00-05:00',
  ],
  [
    'Australia/Lord_Howe',
    '2025-04-06T01:45',
    '2025-04-06T01:45:00+11:00',
    '2025-04-06T01:45:00+10:30',
  ],
] as const;

describe('a local time daylight saving skips', () => {
  it.each(GAPS)(
    'in %s moves forward by the gap unless told otherwise',
    async (zone, local, later, earlier) => {
      expect(await read(local, zone)).toBe(later);
      expect(await read(local, zone, 'compatible')).toBe(later);
      expect(await read(local, zone, 'later')).toBe(later);
      expect(await read(local, zone, 'earlier')).toBe(earlier);
      expect(
        await codeOf('date_add', { date: local, timeZone: zone, disambiguation: 'reject' }),
      ).toBe('invalid_argument');
    },
  );

  it('places a sum of days that lands in the gap by the same rule', async () => {
    const args = { date: '2025-03-29T02:30', days: 1, timeZone: 'Europe/Paris' };
    expect((await call('date_add', args)).iso).toBe('2025-03-30T03:30:00+02:00');
    expect((await call('date_add', { ...args, disambiguation: 'earlier' })).iso).toBe(
      '2025-03-30T01:30:00+01:00',
    );
    expect(await codeOf('date_add', { ...args, disambiguation: 'reject' })).toBe(
      'invalid_argument',
    );
  });

  it('counts hours as elapsed time across the gap', async () => {
    const args = { date: '2025-03-30T01:30', hours: 1, timeZone: 'Europe/Paris' };
    expect((await call('date_add', { ...args, disambiguation: 'reject' })).iso).toBe(
      '2025-03-30T03:30:00+02:00',
    );
  });
});

describe('a local time daylight saving repeats', () => {
  it.each(OVERLAPS)(
    'in %s is the first unless told otherwise',
    async (zone, local, first, second) => {
      expect(await read(local, zone)).toBe(first);
      expect(await read(local, zone, 'compatible')).toBe(first);
      expect(await read(local, zone, 'earlier')).toBe(first);
      expect(await read(local, zone, 'later')).toBe(second);
      expect(
        await codeOf('date_add', { date: local, timeZone: zone, disambiguation: 'reject' }),
      ).toBe('invalid_argument');
    },
  );

  it('is read by date_diff by the same rule', async () => {
    const args = { from: '2025-11-02T00:30', to: '2025-11-02T01:30', unit: 'minutes' };
    const zone = { timeZone: 'America/New_York' };
    expect((await call('date_diff', { ...args, ...zone })).value).toBe(60);
    expect((await call('date_diff', { ...args, ...zone, disambiguation: 'later' })).value).toBe(
      120,
    );
    expect(await codeOf('date_diff', { ...args, ...zone, disambiguation: 'reject' })).toBe(
      'invalid_argument',
    );
  });

  it('keeps an explicit offset as given, whatever the rule', async () => {
    const args = { date: '2025-10-26T02:30:00+01:00', timeZone: 'Europe/Paris' };
    expect((await call('date_add', { ...args, disambiguation: 'reject' })).iso).toBe(
      '2025-10-26T02:30:00+01:00',
    );
  });
});
