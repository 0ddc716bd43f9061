import { describe, expect, it } from 'vitest';
import type { SchemaValidator } from '../validator.js';
import { errorCodeOf } from './error-code.js';
import { errorsOf } from './errors-of.js';

// 30 `a`s and a `b`: a backtracking engine takes about 2^30 steps (seconds, doubling with each
// further `a`) to find that `^(a+)+$` does not match; a test that hangs here is the defect.
const HOSTILE = `${'a'.repeat(30)}b`;
const BACKTRACKING = '^(a+)+$';

/**
 * The `pattern` and `patternProperties` part of the {@link SchemaValidator} contract (see
 * `describeSchemaValidatorContract`, which registers it): patterns are ECMA-262 with the `u`
 * flag, and no value can make one backtrack for seconds on an event loop that many callers
 * share.
 */
export function describePatternContract(create: () => SchemaValidator): void {
  describe('patterns', () => {
    it('throws invalid_schema for a pattern that is not a regular expression', () => {
      expect(errorCodeOf(() => create().validate({ type: 'string', pattern: '(' }, 'x'))).toBe(
        'invalid_schema',
      );
    });

    it('answers a backtracking pattern at once, with a pattern error', () => {
      const validator = create();
      const schema = { type: 'string', pattern: BACKTRACKING };
      expect(errorsOf(validator.validate(schema, HOSTILE))).toEqual([
        { path: '', keyword: 'pattern' },
      ]);
      expect(validator.validate(schema, 'aaaa')).toEqual({ valid: true });
    });

    it('tests patternProperties keys without backtracking', () => {
      const validator = create();
      const schema = {
        type: 'object',
        patternProperties: { [BACKTRACKING]: { type: 'number' } },
        additionalProperties: false,
      };
      expect(errorsOf(validator.validate(schema, { [HOSTILE]: 1 }))).toEqual([
        { path: `/${HOSTILE}`, keyword: 'additionalProperties' },
      ]);
      expect(validator.validate(schema, { aaaa: 1 })).toEqual({ valid: true });
      expect(errorsOf(validator.validate(schema, { aaaa: 'x' }))).toEqual([
        { path: '/aaaa', keyword: 'type' },
      ]);
    });

    it('answers a backtracking pattern at once wherever a $ref finds it', () => {
      const validator = create();
      // Under a keyword no validator knows, reached only through the reference.
      const schema = { $ref: '#/x-word', 'x-word': { type: 'string', pattern: BACKTRACKING } };
      expect(errorsOf(validator.validate(schema, HOSTILE))).toEqual([
        { path: '', keyword: 'pattern' },
      ]);
      const names = {
        type: 'object',
        propertyNames: { $ref: '#/$defs/name' },
        $defs: { name: { pattern: BACKTRACKING } },
      };
      expect(validator.validate(names, { [HOSTILE]: 1 }).valid).toBe(false);
      expect(validator.validate(names, { aa: 1 })).toEqual({ valid: true });
    });

    it('still checks patterns with lookaround or backreferences', () => {
      const validator = create();
      for (const [pattern, text, valid] of [
        ['^(?=.*\\d).+$', 'pass1', true],
        ['^(?=.*\\d).+$', 'pass', false],
        ['(?<!a)b', 'ab', false],
        ['^(\\w)\\1$', 'xx', true],
        ['^(?<c>\\w)\\k<c>$', 'xy', false],
      ] as const) {
        expect(validator.validate({ type: 'string', pattern }, text).valid, pattern).toBe(valid);
        const keys = { patternProperties: { [pattern]: false } };
        expect(validator.validate(keys, { [text]: 1 }).valid, pattern).toBe(!valid);
      }
    });

    it('keeps the JavaScript meaning of \\s, . and \\p{…}', () => {
      const validator = create();
      for (const [pattern, text, valid] of [
        ['^\\s$', '\u00a0', true],
        ['^\\S$', '\u2028', false],
        ['^.$', '\u2028', false],
        ['^.$', '😀', true],
        ['^\\p{Lu}+$', 'ÉA', true],
        ['^\\p{Letter}$', '1', false],
      ] as const) {
        expect(validator.validate({ type: 'string', pattern }, text).valid, pattern).toBe(valid);
      }
    });

    it('leaves a schema with patterns unchanged', () => {
      const keys = Object.freeze({ [BACKTRACKING]: Object.freeze({ type: 'number' }) });
      const word = Object.freeze({ type: 'string', pattern: BACKTRACKING });
      const schema = Object.freeze({
        type: 'object',
        properties: Object.freeze({ word }),
        patternProperties: keys,
      });
      const before = JSON.stringify(schema);
      expect(create().validate(schema, { word: HOSTILE, aa: 1 }).valid).toBe(false);
      expect(JSON.stringify(schema)).toBe(before);
      expect(Object.getOwnPropertyNames(word)).toEqual(['type', 'pattern']);
    });

    it('reports a failing pattern and a failing format both', () => {
      const schema = { type: 'string', pattern: '^a', format: 'email' };
      expect(errorsOf(create().validate(schema, 'b'))).toEqual([
        { path: '', keyword: 'pattern' },
        { path: '', keyword: 'format' },
      ]);
    });
  });
}
