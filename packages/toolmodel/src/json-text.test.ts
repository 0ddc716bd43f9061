import { describe, expect, it } from 'vitest';
import { inexactInteger, inexactIntegerMessage, inexactIntegers } from './json-text.js';

describe('inexactIntegers', () => {
  it('returns every integer JSON.parse would read as another number, in order', () => {
    expect(
      inexactIntegers('[9007199254740993, {"a": -9007199254740995}, 9007199254740994]'),
    ).toEqual(['9007199254740993', '-9007199254740995']);
  });

  it('returns none for safe integers, exact large ones, floats and digits inside strings', () => {
    expect(
      inexactIntegers(
        '{"a": 9007199254740991, "b": 9007199254740992, "c": 1e300, "d": 0.12345678901234567891, "e": "9007199254740993", "f": "\\"9007199254740993"}',
      ),
    ).toEqual([]);
  });
});

describe('inexactInteger', () => {
  it('returns the first, or undefined', () => {
    expect(inexactInteger('{"id": 12345678901234567890, "x": 9007199254740993}')).toBe(
      '12345678901234567890',
    );
    expect(inexactInteger('{"id": 1}')).toBeUndefined();
  });
});

describe('inexactIntegerMessage', () => {
  it('names the integer, the number it would be read as, and where it was', () => {
    expect(inexactIntegerMessage('9007199254740993')).toMatch(
      /^the integer 9007199254740993 in the arguments cannot be passed on exactly .* here 9007199254740992\), so the tool was not run; send such a value as a string/,
    );
    expect(
      inexactIntegerMessage('9007199254740993', { where: 'at /x', outcome: 'nothing was done' }),
    ).toMatch(/^the integer 9007199254740993 at \/x .* so nothing was done$/);
  });
});
