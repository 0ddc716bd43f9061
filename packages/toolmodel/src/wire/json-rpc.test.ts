import { describe, expect, it } from 'vitest';
import { answerIdOf, isRequestId } from './json-rpc.js';

describe('isRequestId', () => {
  it('accepts strings and safe integers', () => {
    for (const id of ['', 'a', 0, -1, 7, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      expect(isRequestId(id)).toBe(true);
    }
  });

  it('refuses integers past 2^53 - 1, which JSON.parse cannot read exactly', () => {
    const parsed = (JSON.parse('{"id":123456789012345678901234567890}') as { id: unknown }).id;
    for (const id of [parsed, 2 ** 53, -(2 ** 60)]) expect(isRequestId(id)).toBe(false);
  });

  it('refuses fractions, non-finite numbers, null and objects', () => {
    for (const id of [1.5, Number.NaN, Infinity, null, undefined, {}, [], true]) {
      expect(isRequestId(id)).toBe(false);
    }
  });
});

describe('answerIdOf', () => {
  it("gives a message's usable ID, else null", () => {
    expect(answerIdOf({ id: 3 })).toBe(3);
    expect(answerIdOf({ id: 'x' })).toBe('x');
    expect(answerIdOf({ id: 1.5 })).toBeNull();
    expect(answerIdOf({ id: 2 ** 60 })).toBeNull();
    expect(answerIdOf([{ id: 3 }])).toBeNull();
    expect(answerIdOf('{"id":3}')).toBeNull();
  });
});
