import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearPattern } from './linear-pattern.js';

describe('linearPattern', () => {
  it('agrees with the JavaScript "u" engine on patterns and strings it generates', () => {
    const atoms = [
      'a',
      'b',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\w',
      '[^a]',
      '\\u00e9',
      '\\p{L}',
      '[\\s\\d]',
    ];
    const pattern = fc
      .array(fc.tuple(fc.constantFrom(...atoms), fc.constantFrom('', '*', '+', '?', '{1,2}')), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.map(([atom, quantifier]) => atom + quantifier).join(''));
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', '1', ' ', '\u00a0', '\n', '\r', '\u2028', 'é', 'Ж', '😀'),
      maxLength: 6,
    });
    fc.assert(
      fc.property(pattern, text, (source, value) => {
        expect(linearPattern(source).test(value)).toBe(new RegExp(source, 'u').test(value));
      }),
    );
  });

  it('runs backreferences and lookaround on the JavaScript engine, as before', () => {
    for (const [source, text, matches] of [
      ['(a)\\1', 'aa', true],
      ['(?<x>a)\\k<x>', 'ab', false],
      ['^(?=.*\\d).+$', 'pass1', true],
      ['(?<!a)b', 'ab', false],
    ] as const) {
      const pattern = linearPattern(source);
      expect(pattern.linear).toBe(false);
      expect(pattern.test(text)).toBe(matches);
    }
  });

  it('refuses a pattern that is not a regular expression with invalid_schema', () => {
    expect(() => linearPattern('(')).toThrow(expect.objectContaining({ code: 'invalid_schema' }));
  });

  it('answers a backtracking pattern at once', () => {
    const pattern = linearPattern('^(a+)+$');
    expect(pattern.linear).toBe(true);
    expect(pattern.test(`${'a'.repeat(40)}b`)).toBe(false);
    expect(pattern.test('aaaa')).toBe(true);
  });
});
