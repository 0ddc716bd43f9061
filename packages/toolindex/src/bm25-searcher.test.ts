import { describe, expect, it } from 'vitest';
import { ToolError } from '@toolplane/toolmodel';
import { createBm25Searcher } from './bm25-searcher.js';
import type { SearchDocument } from './searcher.js';

const doc = (
  id: string,
  description: string,
  extra: Partial<SearchDocument> = {},
): SearchDocument => ({
  id,
  name: id.split(':').pop() ?? id,
  namespace: id.includes(':') ? id.split(':')[0] : undefined,
  title: undefined,
  description,
  tags: [],
  ...extra,
});

describe('createBm25Searcher', () => {
  it('weights a match in the name above one in the description', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:notes', 'Keeps a calendar of notes.'));
    searcher.upsert(doc('a:calendar', 'Keeps notes.'));
    const hits = searcher.search({ text: 'calendar', limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(['a:calendar', 'a:notes']);
  });

  it('breaks score ties by id', () => {
    const searcher = createBm25Searcher();
    for (const id of ['x:c', 'x:a', 'x:b']) searcher.upsert(doc(id, 'same words here'));
    const hits = searcher.search({ text: 'words', limit: 2 });
    expect(hits.map((h) => h.id)).toEqual(['x:a', 'x:b']);
  });

  it('replaces a document on upsert and forgets it on remove', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:t', 'alpha'));
    searcher.upsert(doc('a:t', 'beta'));
    expect(searcher.search({ text: 'alpha', limit: 5 })).toEqual([]);
    expect(searcher.search({ text: 'beta', limit: 5 })).toHaveLength(1);
    searcher.remove('a:t');
    searcher.remove('a:t');
    expect(searcher.search({ text: 'beta', limit: 5 })).toEqual([]);
  });

  it('stays correct across compaction after many removals', () => {
    const searcher = createBm25Searcher();
    for (let i = 0; i < 3000; i++)
      searcher.upsert(doc(`n:t${i}`, i % 2 === 0 ? 'even widget' : 'odd widget'));
    for (let i = 0; i < 2500; i++) searcher.remove(`n:t${i}`);
    for (let i = 0; i < 10; i++) searcher.upsert(doc(`n:new${i}`, 'even gadget'));
    const even = searcher.search({ text: 'even', limit: 1000 });
    expect(even).toHaveLength(250 + 10);
    expect(new Set(even.map((h) => h.id)).size).toBe(even.length);
    expect(searcher.search({ text: 'widget', limit: 1000 })).toHaveLength(500);
  });

  it('honours namespace and tag filters', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:one', 'shared', { tags: ['x'] }));
    searcher.upsert(doc('b:two', 'shared', { tags: ['x', 'y'] }));
    const ids = (q: object) => searcher.search({ text: 'shared', limit: 5, ...q }).map((h) => h.id);
    expect(ids({ namespace: 'a' })).toEqual(['a:one']);
    expect(ids({ tags: ['y'] })).toEqual(['b:two']);
  });

  it('throws invalid_argument for out-of-range parameters', () => {
    for (const options of [{ b: 2 }, { k1: -1 }, { weights: { name: Number.NaN } }]) {
      let code: string | undefined;
      try {
        createBm25Searcher(options);
      } catch (error) {
        code = ToolError.isInstance(error) ? error.code : undefined;
      }
      expect(code).toBe('invalid_argument');
    }
  });
});
