import { createIndex } from '@toolplane/toolindex';
import { describe, expect, it } from 'vitest';
import { listAll } from './source.js';

function catalogue(size: number) {
  const index = createIndex();
  for (let n = 0; n < size; n++) {
    index.registerTool(
      {
        namespace: n % 2 === 0 ? 'even' : 'odd',
        name: `tool_${String(n).padStart(3, '0')}`,
        description: `Tool number ${n}.`,
        inputSchema: { type: 'object' },
        tags: n % 3 === 0 ? ['third'] : [],
      },
      { kind: 'local', local: { name: 'noop' } },
    );
  }
  return index;
}

describe('listAll', () => {
  it('walks every page of the index, in ID order', () => {
    const ids = listAll(catalogue(250), {}).map((entry) => entry.id);
    expect(ids).toHaveLength(250);
    expect(ids).toEqual([...ids].sort());
  });

  it('keeps a tool only when it meets every include rule', () => {
    const ids = listAll(catalogue(12), { include: { namespaces: ['even'], tags: ['third'] } }).map(
      (entry) => entry.id,
    );
    expect(ids).toEqual(['even:tool_000', 'even:tool_006']);
  });

  it('drops a tool that meets any exclude rule', () => {
    const ids = listAll(catalogue(6), {
      exclude: { namespaces: ['odd'], ids: ['even:tool_002'] },
    }).map((entry) => entry.id);
    expect(ids).toEqual(['even:tool_000', 'even:tool_004']);
  });

  it('treats a tool without a tag as meeting no tag rule', () => {
    const ids = listAll(catalogue(4), { include: { tags: ['missing'] } });
    expect(ids).toEqual([]);
  });
});
