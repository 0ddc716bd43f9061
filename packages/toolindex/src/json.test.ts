import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ToolError } from '@toolplane/toolmodel';
import { frozenCopy, jsonEqual } from './json.js';

describe('frozenCopy', () => {
  it('copies deeply and freezes every level', () => {
    const source = { a: [{ b: 1 }], c: { d: 'x' } };
    const copy = frozenCopy(source);
    source.a[0]!.b = 2;
    expect(copy).toEqual({ a: [{ b: 1 }], c: { d: 'x' } });
    expect(Object.isFrozen(copy) && Object.isFrozen(copy.a) && Object.isFrozen(copy.a[0])).toBe(
      true,
    );
  });

  it('drops properties whose value is undefined', () => {
    expect(frozenCopy({ a: undefined, b: 1 })).toEqual({ b: 1 });
    expect(Object.keys(frozenCopy({ a: undefined, b: 1 }))).toEqual(['b']);
  });

  it('keeps a __proto__ key as a key, leaving the prototype alone', () => {
    const source = JSON.parse('{"properties":{"__proto__":{"type":"string"},"a":{}}}') as {
      properties: Record<string, unknown>;
    };
    const copy = frozenCopy(source);
    expect(Object.keys(copy.properties)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(copy.properties)).toBe(Object.prototype);
    expect(jsonEqual(copy, source)).toBe(true);
  });

  it('keeps a __proto__ key of the top node as a key, frozen, leaving the prototype alone', () => {
    const source = JSON.parse('{"__proto__":{"polluted":true},"b":[1,{"c":2}]}') as object;
    const copy = frozenCopy(source);
    expect(Object.keys(copy)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.isFrozen(copy)).toBe(true);
    expect(jsonEqual(copy, source)).toBe(true);
  });

  it('shares equal nodes below the top level, keeping key order and each copy its own top', () => {
    const schema = () => ({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
    const first = frozenCopy({ name: 'a', inputSchema: schema() });
    const second = frozenCopy({ name: 'b', inputSchema: schema() });
    expect(second).not.toBe(first);
    expect(second.inputSchema).toBe(first.inputSchema);
    // The same keys in another order are another node: the copy keeps the caller's order.
    const reordered = frozenCopy({
      name: 'c',
      inputSchema: { properties: { id: { type: 'string' } }, type: 'object', required: ['id'] },
    });
    expect(Object.keys(reordered.inputSchema)).toEqual(['properties', 'type', 'required']);
    expect(reordered.inputSchema.properties).toBe(first.inputSchema.properties);
    // A value differing anywhere below is not shared.
    const other = frozenCopy({ name: 'd', inputSchema: { ...schema(), required: ['id', 'x'] } });
    expect(other.inputSchema).not.toBe(first.inputSchema);
    expect(other.inputSchema.properties).toBe(first.inputSchema.properties);
    expect(other.inputSchema.required).toEqual(['id', 'x']);
  });

  it('never shares a node with a __proto__ key, and recovers after a throw mid-copy', () => {
    const source = () =>
      JSON.parse('{"p":{"__proto__":{"type":"string"}}}') as { p: Record<string, unknown> };
    expect(frozenCopy(source()).p).not.toBe(frozenCopy(source()).p);
    const cyclic: Record<string, unknown> = { a: { type: 'string' } };
    cyclic.self = cyclic;
    expect(() => frozenCopy(cyclic)).toThrow();
    expect(frozenCopy({ x: [1, 2, { y: 'z' }] })).toEqual({ x: [1, 2, { y: 'z' }] });
  });

  it('copies equal to the input for arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 6 }), (values) => {
        for (const value of values) expect(jsonEqual(frozenCopy({ value }), { value })).toBe(true);
      }),
    );
  });

  it('throws invalid_tool for a cycle', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let code: string | undefined;
    try {
      frozenCopy(cyclic);
    } catch (error) {
      code = ToolError.isInstance(error) ? error.code : undefined;
    }
    expect(code).toBe('invalid_tool');
  });
});

describe('jsonEqual', () => {
  it('ignores key order and compares arrays by position', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, b: [1, 2] }, { a: 1, b: [2, 1] })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(Number.NaN, Number.NaN)).toBe(true);
  });

  it('agrees with comparing key-sorted JSON on arbitrary JSON values', () => {
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
            )
          : value;
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const same = JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
        expect(jsonEqual(frozenCopy(a), frozenCopy(b))).toBe(same);
        expect(jsonEqual(frozenCopy(a), frozenCopy(JSON.parse(JSON.stringify(a))))).toBe(true);
      }),
    );
  });
});
