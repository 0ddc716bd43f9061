import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

describe('jsonEqual', () => {
  it('ignores key order and compares arrays by position', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, b: [1, 2] }, { a: 1, b: [2, 1] })).toBe(false);
  });

  it('tells apart values of different shapes and key sets', () => {
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });

  it('takes NaN as equal to itself, as a copy of it would be', () => {
    expect(jsonEqual(Number.NaN, Number.NaN)).toBe(true);
  });

  it('compares own keys only, as JSON does', () => {
    const inherited = Object.create({ a: 1 }) as Record<string, unknown>;
    expect(jsonEqual(inherited, {})).toBe(true);
    expect(jsonEqual(JSON.parse('{"__proto__":{"a":1}}'), {})).toBe(false);
  });
});
