import { describe, expect, it } from 'vitest';
import { isJsonData, jsonProblem, MAX_JSON_DEPTH } from './json-value.js';

describe('jsonProblem', () => {
  it('accepts JSON data', () => {
    expect(jsonProblem({ a: [1, 'b', true, null, { c: -0.5 }] })).toBeUndefined();
    expect(jsonProblem(Object.assign(Object.create(null) as object, { a: 1 }))).toBeUndefined();
  });

  it('names what JSON cannot carry, where it is', () => {
    expect(jsonProblem({ n: Number.NaN })).toBe('/n is NaN, not a finite number');
    expect(jsonProblem({ list: [1, Infinity] })).toBe('/list/1 is Infinity, not a finite number');
    expect(jsonProblem({ when: new Date(0) })).toBe('/when is a Date instance, not a plain object');
    expect(jsonProblem({ m: new Map() })).toBe('/m is a Map instance, not a plain object');
    expect(jsonProblem({ f: () => 1 })).toBe('/f is a function, which is not JSON');
    expect(jsonProblem({ big: 1n })).toBe('/big is a bigint, which is not JSON');
    expect(jsonProblem(Number.NaN)).toBe('the value is NaN, not a finite number');
  });

  it('agrees with isJsonData, which answers without naming the problem', async () => {
    const { runInNewContext } = await import('node:vm');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const values: unknown[] = [
      { a: [1, 'b', true, null, { c: -0.5 }] },
      { n: Number.NaN },
      { when: new Date(0) },
      { a: undefined },
      [1, undefined],
      cycle,
      JSON.parse('{"__proto__":{"x":1}}'),
      runInNewContext('({ a: [{ b: 1 }] })'),
      Object.create({ inherited: Number.NaN }) as object,
    ];
    const options = [{}, { undefinedMembers: true }, { protoKeys: true }, { maxDepth: 1 }];
    for (const value of values) {
      for (const option of options) {
        expect(isJsonData(value, option)).toBe(jsonProblem(value, option) === undefined);
      }
    }
  });

  it('names keys as JSON Pointer tokens', () => {
    expect(jsonProblem({ 'a/b': { '~c': Number.NaN } })).toBe(
      '/a~1b/~0c is NaN, not a finite number',
    );
  });

  it('refuses undefined, unless as an object member when told to leave those out', () => {
    expect(jsonProblem({ a: undefined })).toBe('/a is undefined, which is not JSON');
    expect(jsonProblem({ a: undefined, b: 1 }, { undefinedMembers: true })).toBeUndefined();
    // JSON text would make an array's undefined item null: a different value.
    expect(jsonProblem([1, undefined], { undefinedMembers: true })).toBe(
      '/1 is undefined, which is not JSON',
    );
  });

  it('takes a plain object of another realm, and __proto__ keys or deeper nesting when told to', async () => {
    const { runInNewContext } = await import('node:vm');
    expect(jsonProblem(runInNewContext('({ a: [{ b: 1 }] })'))).toBeUndefined();
    expect(jsonProblem(runInNewContext('new Date(0)'))).toBe(
      'the value is a Date instance, not a plain object',
    );
    expect(jsonProblem(JSON.parse('{"__proto__":{"x":1}}'), { protoKeys: true })).toBeUndefined();
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(jsonProblem(deep)).toMatch(/nested deeper than 64 levels$/);
    expect(jsonProblem(deep, { maxDepth: 1_000 })).toBeUndefined();
  });

  it('refuses cycles, __proto__ keys and nesting past the limit', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonProblem(cycle)).toBe('/self refers back to itself');
    expect(jsonProblem(JSON.parse('{"__proto__":{"x":1}}'))).toBe(
      'the value has a "__proto__" key',
    );
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_JSON_DEPTH; i++) deep = [deep];
    expect(jsonProblem(deep)).toMatch(/is nested deeper than 64 levels$/);
  });
});
