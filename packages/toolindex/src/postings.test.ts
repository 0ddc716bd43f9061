import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPostings, isLiveMeta, type Postings } from './postings.js';
import type { SearchDocument } from './searcher.js';

const doc = (id: string): SearchDocument => ({
  id,
  name: id,
  namespace: undefined,
  title: undefined,
  description: undefined,
  tags: [],
});

/** Each term's postings as (document id, score) pairs, read from the pool. */
function listsOf(postings: Postings, terms: readonly string[]): Map<string, [string, number][]> {
  const { store } = postings;
  const lists = new Map<string, [string, number][]>();
  for (const term of terms) {
    const id = postings.termId(term);
    if (id < 0) continue;
    const rows: [string, number][] = [];
    const start = store.starts[id] as number;
    for (let p = start; p < start + (store.lengths[id] as number); p++) {
      const slot = store.slots[p * 2] as number;
      const live = postings.docAt(slot);
      if (live !== undefined) rows.push([live.id, store.values[p * 2 + 1] as number]);
    }
    if (rows.length > 0) lists.set(term, rows);
  }
  return lists;
}

describe('createPostings', () => {
  it('keeps every list in slot order with its scores through growth, removals and compactions', () => {
    const terms = ['a', 'b', 'c', 'd', 'e'];
    const step = fc.oneof(
      fc.record({ add: fc.constant(true), terms: fc.subarray(terms, { minLength: 1 }) }),
      fc.record({ add: fc.constant(false), which: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 2500, maxLength: 3000 }), (steps) => {
        const postings = createPostings();
        // The model: live documents in slot order, each with its terms and scores.
        const model: { id: string; scores: Map<string, number> }[] = [];
        let next = 0;
        for (const s of steps) {
          if (s.add) {
            const id = `d${next++}`;
            const slot = postings.addDocument(doc(id), 0);
            const scores = new Map<string, number>();
            s.terms.forEach((term, i) => {
              const score = Math.fround(1 + i / 8 + (next % 7) / 64);
              postings.append(postings.listFor(term), slot, score);
              scores.set(term, score);
            });
            model.push({ id, scores });
          } else if (model.length > 0) {
            const [gone] = model.splice(s.which % model.length, 1);
            if (gone === undefined) continue;
            const ids = Int32Array.from([...gone.scores.keys()].map((t) => postings.termId(t)));
            postings.removeDocument(gone.id, ids, ids.length);
          }
        }
        const expected = new Map<string, [string, number][]>();
        for (const term of terms) {
          const rows = model.flatMap(({ id, scores }) =>
            scores.has(term) ? [[id, scores.get(term) as number] as [string, number]] : [],
          );
          if (rows.length > 0) expected.set(term, rows);
          expect(postings.df(term)).toBe(rows.length);
        }
        expect(listsOf(postings, terms)).toEqual(expected);
        expect(postings.size).toBe(model.length);
        for (const { id } of model) expect(postings.documentOf(id)?.id).toBe(id);
      }),
      { numRuns: 20 },
    );
  });

  it('forgets a term no live document holds once compacted, and gives its number out again', () => {
    const postings = createPostings();
    const add = (id: string, term: string): void => {
      const slot = postings.addDocument(doc(id), 0);
      postings.append(postings.listFor(term), slot, 1);
    };
    for (let i = 0; i < 1100; i++) add(`gone${i}`, 'zeppelin');
    for (let i = 0; i < 1200; i++) add(`filler${i}`, 'balloon');
    const zeppelin = postings.termId('zeppelin');
    const balloon = postings.termId('balloon');
    for (let i = 0; i < 1100; i++) postings.removeDocument(`gone${i}`, Int32Array.of(zeppelin), 1);
    // Compaction waits until removed documents outnumber the live ones.
    expect(postings.compactions).toBe(0);
    for (let i = 0; i < 100; i++) postings.removeDocument(`filler${i}`, Int32Array.of(balloon), 1);
    expect(postings.compactions).toBe(1);
    expect(postings.termId('zeppelin')).toBe(-1);
    expect(postings.listFor('airship')).toBe(zeppelin);
    add('kept', 'airship');
    expect(postings.df('airship')).toBe(1);
    expect(postings.df('balloon')).toBe(1100);
    const slot = postings.slotCount - 1;
    expect(postings.docAt(slot)?.id).toBe('kept');
    expect(isLiveMeta(postings.slotMeta[slot] as number)).toBe(true);
  });
});
