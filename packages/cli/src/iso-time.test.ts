import { describe, expect, it } from 'vitest';
import { parseIsoTime } from './iso-time.js';

describe('parseIsoTime', () => {
  it('reads a date as midnight UTC, and a date-time with a zone, with T or a space', () => {
    expect(parseIsoTime('2026-11-28', '--since')).toBe(Date.UTC(2026, 10, 28));
    expect(parseIsoTime('2026-11-28T09:00Z', '--since')).toBe(Date.UTC(2026, 10, 28, 9));
    expect(parseIsoTime('2026-11-28 09:00:30.5+02:00', '--since')).toBe(
      Date.UTC(2026, 10, 28, 7, 0, 30, 500),
    );
    expect(parseIsoTime(' 2024-02-29 ', '--since')).toBe(Date.UTC(2024, 1, 29));
  });

  it('reads a date-time without a zone as local time, as Date.parse does', () => {
    expect(parseIsoTime('2026-11-28T09:00', '--since')).toBe(new Date(2026, 10, 28, 9).getTime());
  });

  it('refuses what Date.parse alone would guess at, and days and times that do not exist', () => {
    for (const text of [
      '5',
      'Nov 5',
      'yesterday',
      '2026',
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-11-28T24:30Z',
      '2026-11-28T09:60Z',
      '28/11/2026',
      '',
    ]) {
      expect(() => parseIsoTime(text, '--since')).toThrow(
        expect.objectContaining({
          code: 'invalid_argument',
          message: `--since ${JSON.stringify(text)} is not a time; give ISO 8601, e.g. 2026-11-28 or 2026-11-28T09:00Z`,
        }),
      );
    }
  });
});
