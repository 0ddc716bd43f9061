import { describe, expect, it } from 'vitest';
import { correctTypo } from './typo.js';

const known = new Map([
  ['search', 40],
  ['schedul', 12],
  ['receiv', 3],
  ['searcher', 1],
]);
const df = (term: string): number => known.get(term) ?? 0;

describe('correctTypo', () => {
  it('finds the known term one deletion, transposition, substitution or insertion away', () => {
    expect(correctTypo('serach', df)).toBe('search'); // transposition
    expect(correctTypo('shedul', df)).toBe('schedul'); // insertion
    expect(correctTypo('reciev', df)).toBe('receiv'); // transposition
    expect(correctTypo('searchh', df)).toBe('search'); // deletion
    expect(correctTypo('seerch', df)).toBe('search'); // substitution
  });

  it('prefers the term more tools contain', () => {
    // `searche` is one edit from both `search` (40 tools) and `searcher` (1).
    expect(correctTypo('searche', df)).toBe('search');
  });

  it('leaves short, non-ASCII and hopeless terms alone', () => {
    expect(correctTypo('srch', df)).toBeUndefined();
    expect(correctTypo('séarch', df)).toBeUndefined();
    expect(correctTypo('xylophone', df)).toBeUndefined();
  });

  it('leaves a hostile long word alone instead of building its variants', () => {
    const long = `${'a'.repeat(995)}serch`;
    let lookups = 0;
    expect(
      correctTypo(long, (term) => {
        lookups++;
        return df(term);
      }),
    ).toBeUndefined();
    expect(lookups).toBe(0);
  });
});
