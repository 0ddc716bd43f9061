import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHits } from './searcher.js';
import { createTopHits, idKeys, offerHit, takeHits } from './top-hits.js';

// Ids that share long prefixes, differ past the 14 characters the keys hold, are prefixes of
// each other, or hold characters the keys cannot encode.
const idArbitrary = fc
  .tuple(
    fc.constantFrom('', 'github:', 'github:create_', 'brefen', 'brefenva-1', 'café:', 'z'),
    fc.string({
      unit: fc.constantFrom('a', 'b', '_', ':', '-', 'é', '\u0000', 'Z'),
      maxLength: 18,
    }),
  )
  .map(([prefix, rest]) => prefix + rest);

describe('createTopHits with id keys', () => {
  it('keeps the same best hits, ties broken by id, as a full sort', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(idArbitrary, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 60, maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        (ids, scores, limit) => {
          const docs = ids.map((id) => ({ id }));
          const keys = new Float64Array(ids.length * 2);
          ids.forEach((id, slot) => {
            idKeys(id, keys, slot * 2);
          });
          const withKeys = createTopHits(limit, docs, keys);
          const withoutKeys = createTopHits(limit, docs);
          ids.forEach((_, slot) => {
            offerHit(withKeys, slot, scores[slot] as number);
            offerHit(withoutKeys, slot, scores[slot] as number);
          });
          const expected = ids
            .map((id, slot) => ({ id, score: scores[slot] as number }))
            .sort(compareHits)
            .slice(0, limit);
          expect(takeHits(withKeys)).toEqual(expected);
          expect(takeHits(withoutKeys)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
