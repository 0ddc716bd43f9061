import { describe, expect, it } from 'vitest';
import { isPlainObject } from './guards.js';

describe('isPlainObject', () => {
  it('accepts objects, including ones without a prototype', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject({ a: 1 })).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(JSON.parse('{"__proto__":{}}'))).toBe(true);
  });

  it('refuses null, arrays and every primitive', () => {
    for (const value of [null, undefined, [], [1], 'a', 1, true, 0n, Symbol('s')]) {
      expect(isPlainObject(value)).toBe(false);
    }
  });
});
