import { format } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { urlCharacterCases, urlLikeText } from './testing/url-cases.js';
import { isUrlFormat } from './url-format.js';
import { createValidator } from './validator.js';

// The library's own check, taken before any validation can swap it.
const original = format.url ?? (() => false);

// The library backtracks exponentially in the length of a host (its labels' characters, over
// all labels): short runs of them keep every string here quick for it.
const RUN = /[\p{L}\p{N}.-]{22}/u;
const urlLike = fc
  .array(fc.nat(), { minLength: 12, maxLength: 12 })
  .map(urlLikeText)
  .filter((text) => !RUN.test(text));

describe('isUrlFormat against @cfworker/json-schema', () => {
  it('answers as the library does on random url-like strings', () => {
    fc.assert(
      fc.property(urlLike, (text) => {
        expect(isUrlFormat(text), JSON.stringify(text)).toBe(original(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it('answers as the library does for every character in each part of a url', () => {
    const mismatches: string[] = [];
    for (const text of urlCharacterCases()) {
      if (isUrlFormat(text) !== original(text)) mismatches.push(JSON.stringify(text));
    }
    expect(mismatches).toEqual([]);
  });

  it('gives the verdict of the library through createValidator', () => {
    const validator = createValidator();
    const schema = { type: 'string', format: 'url' };
    fc.assert(
      fc.property(urlLike, (text) => {
        expect(validator.validate(schema, text).valid, JSON.stringify(text)).toBe(original(text));
      }),
      { numRuns: 500 },
    );
  });
});
