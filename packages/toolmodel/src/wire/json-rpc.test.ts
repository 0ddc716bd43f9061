import { describe, expect, it } from 'vitest';
import { answerIdOf, isRequestId } from './json-rpc.js';

describe('isRequestId', () => {
  it('accepts strings and integers, however large', () => {
    for (const id of ['', 'a', 0, -1, 7, 2 ** 60]) expect(isRequestId(id)).toBe(true);
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
    expect(answerIdOf([{ id: 3 }])).toBeNull();
    expect(answerIdOf('{"id":3}')).toBeNull();
  });
});
