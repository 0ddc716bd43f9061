import { describe, expect, it } from 'vitest';
import { DEFAULT_FIELD_WEIGHTS } from './bm25-options.js';
import { createBm25Searcher } from './bm25-searcher.js';
import { createTermCollector } from './document-terms.js';
import { createPostings } from './postings.js';
import type { SearchDocument } from './searcher.js';
import { paddedCatalogue, searchDocumentOf } from './testdata/scale-catalogue.js';
import { tokenize } from './tokenize.js';

const B = 0.75;
const REFERENCE = { name: 3, namespace: 1, tags: 1, title: 3, description: 12 };

/** The pseudo term frequencies of a document, field by field with `tokenize`, as a map. */
function reference(doc: SearchDocument): Map<string, number> {
  const weights = new Map<string, number>();
  const fields: [string | undefined, keyof typeof REFERENCE][] = [
    [doc.name, 'name'],
    [doc.namespace, 'namespace'],
    [doc.tags.length > 0 ? doc.tags.join(' ') : undefined, 'tags'],
    [doc.title, 'title'],
    [doc.description, 'description'],
  ];
  for (const [text, field] of fields) {
    if (text === undefined) continue;
    const terms = tokenize(text);
    if (terms.length === 0) continue;
    const norm = DEFAULT_FIELD_WEIGHTS[field] / (1 - B + (B * terms.length) / REFERENCE[field]);
    for (const term of terms) weights.set(term, (weights.get(term) ?? 0) + norm);
  }
  return weights;
}

const documents = (): SearchDocument[] => [
  ...paddedCatalogue(3000).map(searchDocumentOf),
  {
    id: 'odd:1',
    name: 'getHTTPServerURLs',
    namespace: 'Café-Ops',
    title: 'The ÉCOLE of IT',
    description: 'Lists the URLs of the HTTP servers; naïve CAFÉ façade, v2Api and ΣΊΣΥΦΟΣ too.',
    tags: ['Read-Only', 'fileSystem'],
  },
];

describe('createTermCollector', () => {
  it('gathers exactly the terms and weights tokenize gives, field by field', () => {
    const postings = createPostings();
    const collector = createTermCollector(postings, DEFAULT_FIELD_WEIGHTS, B);
    for (const doc of documents()) {
      const { terms, frequencies, count, nameCount } = collector.collect(doc);
      const expected = reference(doc);
      for (const [term, weight] of expected) {
        const id = postings.termId(term);
        const at = terms.indexOf(id);
        expect(id >= 0 && at >= 0 && at < count, `${doc.id}: ${term}`).toBe(true);
        expect(frequencies[id]).toBe(weight);
      }
      expect(count).toBe(expected.size);
      expect(nameCount).toBe(new Set(tokenize(doc.name)).size);
    }
  });
});

describe('a searcher whose index was compacted', () => {
  it('indexes words again after compaction forgot their posting lists', () => {
    const searcher = createBm25Searcher();
    const doc = (id: string, description: string): SearchDocument => ({
      id,
      name: id,
      namespace: undefined,
      title: undefined,
      description,
      tags: [],
    });
    // Only removed tools say "zeppelin", all removed before the compaction (once more tools are
    // removed than live) that drops its list.
    for (let i = 0; i < 1100; i++) searcher.upsert(doc(`gone${i}`, 'moves a zeppelin'));
    for (let i = 0; i < 1200; i++) searcher.upsert(doc(`filler${i}`, 'keeps a balloon'));
    for (let i = 0; i < 1100; i++) searcher.remove(`gone${i}`);
    for (let i = 0; i < 100; i++) searcher.remove(`filler${i}`);
    expect(searcher.search({ text: 'zeppelin', limit: 5 })).toEqual([]);
    searcher.upsert(doc('airship', 'flies a zeppelin'));
    expect(searcher.search({ text: 'zeppelin', limit: 5 }).map((hit) => hit.id)).toEqual([
      'airship',
    ]);
  });
});
