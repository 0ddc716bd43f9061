import { describe, expect, it } from 'vitest';
import type { SchemaValidator } from '../validator.js';
import { errorsOf } from './errors-of.js';
import { URL_CASES } from './url-cases.js';

const URL_SCHEMA = { type: 'string', format: 'url' };

/**
 * The `format` part of the {@link SchemaValidator} contract (see
 * `describeSchemaValidatorContract`, which registers it): the known formats are asserted,
 * unknown ones ignored, and no value makes a format check run for seconds on an event loop that
 * many callers share.
 */
export function describeFormatContract(create: () => SchemaValidator): void {
  describe('format', () => {
    it.each([
      ['date', '2024-02-29', '2024-02-30'],
      ['date-time', '2024-01-01T10:00:00Z', 'tomorrow at ten'],
      ['email', 'someone@example.com', 'not an email'],
      ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'not-a-uuid'],
      ['ipv4', '127.0.0.1', '999.0.0.1'],
    ])('asserts the %s format', (format, good, bad) => {
      const schema = { type: 'string', format };
      expect(create().validate(schema, good)).toEqual({ valid: true });
      expect(errorsOf(create().validate(schema, bad))).toEqual([{ path: '', keyword: 'format' }]);
    });

    it('ignores unknown formats', () => {
      expect(create().validate({ type: 'string', format: 'x-custom' }, 'anything')).toEqual({
        valid: true,
      });
    });

    it('asserts the url format: http, https or ftp, a public host, no whitespace', () => {
      const validator = create();
      for (const [text, valid] of URL_CASES) {
        expect(validator.validate(URL_SCHEMA, text).valid, JSON.stringify(text)).toBe(valid);
      }
      expect(errorsOf(validator.validate(URL_SCHEMA, 'http://localhost'))).toEqual([
        { path: '', keyword: 'format' },
      ]);
    });

    it('answers a url whose label a backtracking engine takes exponential time on', () => {
      // About 2^40 steps for the libraries' expression: a test that hangs here is the defect.
      const validator = create();
      const label = 'a'.repeat(40);
      expect(errorsOf(validator.validate(URL_SCHEMA, `http://${label}!`))).toEqual([
        { path: '', keyword: 'format' },
      ]);
      expect(validator.validate(URL_SCHEMA, `http://${label}-${label}.com`)).toEqual({
        valid: true,
      });
    });

    it('answers a long url whose user info a backtracking engine takes quadratic time on', () => {
      // 200,000 `a:` pairs: minutes for the libraries' expression, which tries every `:`.
      const validator = create();
      const long = 'a:'.repeat(200_000);
      expect(errorsOf(validator.validate(URL_SCHEMA, `http://${long}!`))).toEqual([
        { path: '', keyword: 'format' },
      ]);
      expect(validator.validate(URL_SCHEMA, `http://${long}@example.com/${long}`)).toEqual({
        valid: true,
      });
    });
  });
}
