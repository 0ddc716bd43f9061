import { describe, expect, it } from 'vitest';
import { errorMessageOf } from './testing/error-code.js';
import { describeSchemaValidatorContract } from './testing/vitest.js';
import { createValidator } from './validator.js';

describeSchemaValidatorContract('createValidator (@cfworker/json-schema)', () => createValidator());

describe('createValidator', () => {
  it('reports at most maxErrors errors', () => {
    const result = createValidator({ maxErrors: 3 }).validate(
      { type: 'array', items: { type: 'string' } },
      [1, 2, 3, 4, 5],
    );
    expect(result.valid ? 0 : result.errors.length).toBe(3);
  });

  it('refuses an option it does not take, and a maxErrors that bounds nothing', () => {
    expect(
      errorMessageOf(() => createValidator({ maxError: 3 } as never), 'invalid_argument'),
    ).toBe('createValidator: unknown option "maxError"; did you mean "maxErrors"?');
    for (const maxErrors of [0, Number.NaN]) {
      expect(errorMessageOf(() => createValidator({ maxErrors }), 'invalid_argument')).toMatch(
        /^createValidator: maxErrors must be a whole number, 1 or more, got /,
      );
    }
  });
});
