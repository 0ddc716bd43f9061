import { describe, expect, it } from 'vitest';
import { TokenBuckets } from './token-buckets.js';

describe('TokenBuckets', () => {
  it('grants a burst of `limit`, then says how long until the next token', () => {
    const buckets = new TokenBuckets(2, 1000);
    expect(buckets.take('a', 0)).toBe(0);
    expect(buckets.take('a', 0)).toBe(0);
    expect(buckets.take('a', 0)).toBe(500);
    expect(buckets.take('a', 500)).toBe(0);
  });

  it('holds only the keys used within the last interval, however many were used', () => {
    const buckets = new TokenBuckets(5, 1000);
    // 100,000 callers over one second.
    for (let i = 0; i < 100_000; i++) buckets.take(`caller-${i}`, i / 100);
    expect(buckets.size).toBe(100_000);
    // Those idle for a whole interval are full again, indistinguishable from new: they are gone.
    buckets.take('late', 1500);
    expect(buckets.size).toBe(49_999 + 1);
    buckets.take('later', 5000);
    expect(buckets.size).toBe(1);
  });

  it('keeps a key that is still being used, and its spent tokens', () => {
    const buckets = new TokenBuckets(1, 1000);
    expect(buckets.take('busy', 0)).toBe(0);
    for (let t = 100; t < 900; t += 100) buckets.take(`other-${t}`, t);
    // Still within its interval: the spent token is remembered.
    expect(buckets.take('busy', 900)).toBe(100);
  });
});
