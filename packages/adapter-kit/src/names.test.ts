import { createIndex } from '@toolplane/toolindex';
import { EXPOSED_NAME_PATTERN } from '@toolplane/toolmodel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameTools } from './names.js';

function indexOf(tools: readonly { namespace?: string; name: string; tags?: string[] }[]) {
  const index = createIndex();
  for (const tool of tools) {
    index.registerTool(
      { ...tool, inputSchema: { type: 'object' } },
      { kind: 'local', local: { name: 'noop' } },
    );
  }
  return index;
}

describe('nameTools', () => {
  it('names tools namespace__name and tools without a namespace by their bare name', () => {
    const named = nameTools(indexOf([{ namespace: 'math', name: 'add' }, { name: 'echo' }]));
    expect(named.map(({ name, entry }) => [name, entry.id])).toEqual([
      ['echo', 'echo'],
      ['math__add', 'math:add'],
    ]);
  });

  it('exposes a transparent namespace bare, and then a namespace-less tool with a prefix', () => {
    const named = nameTools(indexOf([{ namespace: 'math', name: 'add' }, { name: 'echo' }]), {
      naming: { transparent: 'math', separator: '_' },
    });
    expect(named.map(({ name }) => name)).toEqual(['_echo', 'add']);
  });

  it('applies the filter before naming', () => {
    const index = indexOf([
      { namespace: 'a', name: 'one', tags: ['x'] },
      { namespace: 'b', name: 'two' },
    ]);
    expect(nameTools(index, { exclude: { tags: ['x'] } }).map(({ name }) => name)).toEqual([
      'b__two',
    ]);
  });

  it('gives every tool a distinct provider-legal name, however its name is spelled', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_.-]{1,128}$/), {
          minLength: 1,
          maxLength: 20,
        }),
        (names) => {
          const named = nameTools(
            indexOf(
              names.map((name, n) => ({ namespace: n % 2 === 0 ? 'ns' : 'n'.repeat(60), name })),
            ),
          );
          expect(named).toHaveLength(names.length);
          expect(new Set(named.map(({ name }) => name)).size).toBe(names.length);
          for (const { name } of named) expect(name).toMatch(EXPOSED_NAME_PATTERN);
        },
      ),
      { numRuns: 50 },
    );
  });
});
