import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXPOSED_NAME_PATTERN, NameTable, separatorProblem, type NamedItem } from './names.js';

const namespace = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const toolName = fc.stringMatching(/^[A-Za-z0-9_.-]{1,128}$/);
const item = fc.record({ namespace, name: toolName });

describe('NameTable', () => {
  it('exposes namespace__name when it fits the pattern', () => {
    const table = NameTable.build([{ namespace: 'github', name: 'create_issue' }]);
    expect(table.nameOf({ namespace: 'github', name: 'create_issue' })).toBe(
      'github__create_issue',
    );
    expect(table.resolve('github__create_issue')).toEqual({
      namespace: 'github',
      name: 'create_issue',
    });
  });

  it('uses the separator it is given', () => {
    const table = NameTable.build([{ namespace: 'a', name: 'b' }], { separator: '-' });
    expect(table.nameOf({ namespace: 'a', name: 'b' })).toBe('a-b');
  });

  it('exposes the transparent namespace without a prefix', () => {
    const table = NameTable.build(
      [
        { namespace: 'main', name: 'echo' },
        { namespace: 'other', name: 'echo' },
      ],
      { transparent: 'main' },
    );
    expect(table.nameOf({ namespace: 'main', name: 'echo' })).toBe('echo');
    expect(table.nameOf({ namespace: 'other', name: 'echo' })).toBe('other__echo');
  });

  it('shortens dotted and long names with a stable hash suffix', () => {
    const long = { namespace: 'n'.repeat(64), name: 'x'.repeat(128) };
    const dotted = { namespace: 'fs', name: 'read.file' };
    const table = NameTable.build([long, dotted]);
    const again = NameTable.build([dotted, long]);
    for (const it of [long, dotted]) {
      const name = table.nameOf(it);
      expect(name).toMatch(EXPOSED_NAME_PATTERN);
      expect(again.nameOf(it)).toBe(name);
    }
    expect(table.nameOf(dotted)).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
  });

  it('suffixes the SHA-256 of the namespace and name, as node:crypto computes it', () => {
    const dotted = { namespace: 'fs', name: 'read.file' };
    const digest = createHash('sha256').update('fs\u0000read.file').digest('hex');
    expect(NameTable.build([dotted]).nameOf(dotted)).toBe(`fs__read_file_${digest.slice(0, 8)}`);
  });

  it('hashes both items when two want the same plain name', () => {
    const a = { namespace: 'a', name: 'b__c' };
    const b = { namespace: 'a__b', name: 'c' };
    const table = NameTable.build([a, b]);
    expect(table.nameOf(a)).not.toBe(table.nameOf(b));
    expect(table.resolve(table.nameOf(a) ?? '')).toBe(a);
    expect(table.resolve(table.nameOf(b) ?? '')).toBe(b);
  });

  it('never collides, always matches the pattern, and maps back (property)', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), fc.option(namespace), (items, transparent) => {
        const options = transparent === null ? {} : { transparent };
        const table = NameTable.build(items, options);
        const distinct = new Map(items.map((i) => [`${i.namespace}\u0000${i.name}`, i]));
        expect(table.size).toBe(distinct.size);
        const names = new Set<string>();
        for (const i of distinct.values()) {
          const name = table.nameOf(i);
          expect(name).toMatch(EXPOSED_NAME_PATTERN);
          names.add(name ?? '');
          const back = table.resolve(name ?? '');
          expect([back?.namespace, back?.name]).toEqual([i.namespace, i.name]);
        }
        expect(names.size).toBe(distinct.size);
      }),
      { numRuns: 300 },
    );
  });

  it('names an item the same whatever the order of the items (property)', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 20 }), (items) => {
        const forward = NameTable.build(items);
        const backward = NameTable.build([...items].reverse());
        for (const i of items) expect(backward.nameOf(i)).toBe(forward.nameOf(i));
      }),
    );
  });

  it('separates items that only an adversarial name would merge', () => {
    // The plain name of one item is the hashed name another would get.
    const dotted: NamedItem = { namespace: 'x', name: 'a.b' };
    const first = NameTable.build([dotted]).nameOf(dotted) ?? '';
    const impostor: NamedItem = { namespace: 'x', name: first.slice('x__'.length) };
    const table = NameTable.build([dotted, impostor]);
    expect(table.nameOf(dotted)).not.toBe(table.nameOf(impostor));
    expect(table.resolve(table.nameOf(impostor) ?? '')).toBe(impostor);
  });
});

describe('separatorProblem', () => {
  it('passes a separator that keeps a plain name plain, and names what is wrong with another', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/), (separator) => {
        expect(separatorProblem(separator)).toBeUndefined();
        const table = NameTable.build([{ namespace: 'fx', name: 'add' }], { separator });
        expect(table.nameOf({ namespace: 'fx', name: 'add' })).toBe(`fx${separator}add`);
      }),
    );
    for (const separator of ['/', '.', ':', ' ', 'a'.repeat(65)]) {
      expect(separatorProblem(separator)).toMatch(/^must be 1 to 64 of A-Z a-z 0-9 _ -/);
    }
    expect(separatorProblem(undefined)).toBe('must be a string, got undefined');
  });
});
