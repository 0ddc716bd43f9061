import { describe, expect, it } from 'vitest';
import { didYouMean } from './suggest.js';

describe('didYouMean', () => {
  it('returns the known name one slip away, or in another case', () => {
    expect(didYouMean('monts', ['months', 'days', 'date'])).toBe('months');
    expect(didYouMean('DATE', ['months', 'date'])).toBe('date');
    expect(didYouMean('delete_entitys', ['delete_entities', 'create_entities'])).toBe(
      'delete_entities',
    );
  });

  it('returns undefined when nothing is near', () => {
    expect(didYouMean('zzz', ['months', 'days'])).toBeUndefined();
    expect(didYouMean('x', [])).toBeUndefined();
  });
});
