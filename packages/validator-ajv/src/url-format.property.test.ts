import { isUrlFormat } from '@toolplane/toolmodel';
import { URL_CASES, urlCharacterCases, urlLikeText } from '@toolplane/toolmodel/testing';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAjvValidator } from './ajv-validator.js';

// ajv-formats' own expression, which the validator no longer runs.
const original = fullFormats.url as RegExp;
const URL_SCHEMA = { type: 'string', format: 'url' };
const urlLike = fc.array(fc.nat(), { minLength: 12, maxLength: 12 }).map(urlLikeText);

describe('the url format of createAjvValidator', () => {
  it.each(URL_CASES)('answers %j with %s, as ajv-formats does', (text, valid) => {
    expect(original.test(text)).toBe(valid);
    expect(createAjvValidator().validate(URL_SCHEMA, text).valid).toBe(valid);
  });

  it('answers as ajv-formats does on random url-like strings', () => {
    const validator = createAjvValidator();
    fc.assert(
      fc.property(urlLike, (text) => {
        const expected = original.test(text);
        expect(isUrlFormat(text), JSON.stringify(text)).toBe(expected);
        expect(validator.validate(URL_SCHEMA, text).valid, JSON.stringify(text)).toBe(expected);
      }),
      { numRuns: 10_000 },
    );
  });

  it('answers as ajv-formats does for every character in each part of a url', () => {
    const mismatches: string[] = [];
    for (const text of urlCharacterCases()) {
      if (isUrlFormat(text) !== original.test(text)) mismatches.push(JSON.stringify(text));
    }
    expect(mismatches).toEqual([]);
  });
});
