import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNamespaceMembers } from './namespace-members.js';

describe('createNamespaceMembers', () => {
  it('holds the same members as a map of sets through adds, removals and re-adds', () => {
    const step = fc.tuple(
      fc.boolean(),
      fc.constantFrom('a', 'b', 'c'),
      fc.integer({ min: 0, max: 80 }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 600 }), (steps) => {
        const members = createNamespaceMembers();
        const model = new Map<string, Set<string>>();
        for (const [add, namespace, n] of steps) {
          const id = `${namespace}:${n}`;
          const set = model.get(namespace) ?? new Set<string>();
          if (add && !set.has(id)) {
            members.add(namespace, id);
            model.set(namespace, set.add(id));
          } else if (!add && set.has(id)) {
            members.remove(namespace, id);
            set.delete(id);
            if (set.size === 0) model.delete(namespace);
          }
        }
        expect([...members.names()].sort()).toEqual([...model.keys()].sort());
        expect(members.size).toBe(model.size);
        for (const namespace of ['a', 'b', 'c']) {
          const expected = [...(model.get(namespace) ?? [])].sort();
          expect(members.ids(namespace).sort()).toEqual(expected);
          expect(members.count(namespace)).toBe(expected.length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('forgets a deleted namespace', () => {
    const members = createNamespaceMembers();
    members.add('a', 'a:1');
    members.delete('a');
    expect(members.count('a')).toBe(0);
    expect(members.ids('a')).toEqual([]);
    members.add('a', 'a:2');
    expect(members.ids('a')).toEqual(['a:2']);
  });
});
