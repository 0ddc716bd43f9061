import { describe, expect, it } from 'vitest';
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
});
