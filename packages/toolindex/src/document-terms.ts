import type { FieldWeights } from './bm25-options.js';
import type { PostingList, Postings } from './postings.js';
import type { SearchDocument } from './searcher.js';
import { scanWords, termOf } from './tokenize.js';
import { createWordTable, MISSING } from './word-table.js';

/**
 * Typical field lengths (in terms, stop words dropped) that length normalisation compares a
 * field against. Fixed rather than running averages, so a tool's weights never change after it
 * is indexed and no re-weighting pass is ever needed as the catalogue grows.
 */
const REFERENCE_LENGTH: FieldWeights = {
  name: 3,
  namespace: 1,
  tags: 1,
  title: 3,
  description: 12,
};

/**
 * The posting lists of one document being indexed, each with its BM25F pseudo term frequency
 * (`list.pending`), in the order the document first uses them.
 */
export interface DocumentTerms {
  /** The lists; only the first {@link DocumentTerms.count} are this document's. */
  readonly lists: readonly PostingList[];
  readonly count: number;
  /** The first this many of them are terms of the name. */
  readonly nameCount: number;
}

/** Gathers a document's terms for {@link createBm25Searcher}'s index, allocating nothing. */
export interface TermCollector {
  /** Gathers `doc`'s terms; the result is overwritten by the next call. */
  collect(doc: SearchDocument): DocumentTerms;
}

/**
 * Creates the term collector of one searcher's `postings`. Words are resolved to their posting
 * lists through a {@link WordTable} of the words met so far, so a known word costs a hash of its
 * characters and no string; an unknown one is sliced, stemmed (with the same {@link termOf} the
 * queries use, so both sides agree) and remembered. The table is dropped when the postings are
 * compacted, as compaction forgets the lists of terms no document holds any more.
 */
export function createTermCollector(
  postings: Postings,
  weights: FieldWeights,
  b: number,
): TermCollector {
  const words = createWordTable<PostingList | null>();
  let compactions = postings.compactions;
  // This document's lists (grown, never shrunk: setting a JS array's length to 0 frees it).
  const lists: PostingList[] = [];
  let count = 0;
  let nameCount = 0;
  // The current field's lists, one per word (repeats included), before its length is known.
  const field: PostingList[] = [];
  let fieldCount = 0;
  // Tells this document's pass from earlier ones on a list's `stamp`.
  let stamp = 0;

  const visit = (text: string, start: number, end: number, hasUpper: boolean): void => {
    let list = words.find(text, start, end);
    if (list === MISSING) {
      const word = text.slice(start, end);
      const lower = hasUpper ? word.toLowerCase() : word;
      const term = termOf(lower);
      list = term === null ? null : postings.listFor(term);
      words.add(lower, list);
    }
    if (list === null) return;
    if (fieldCount < field.length) field[fieldCount] = list;
    else field.push(list);
    fieldCount++;
  };

  function addField(text: string | undefined, weight: number, reference: number): void {
    if (text === undefined || weight === 0) return;
    fieldCount = 0;
    scanWords(text, visit);
    addScanned(weight, reference);
  }

  /** Adds the field scanned into `field` (its length known now) to the document's lists. */
  function addScanned(weight: number, reference: number): void {
    if (fieldCount === 0) return;
    const norm = weight / (1 - b + (b * fieldCount) / reference);
    for (let i = 0; i < fieldCount; i++) {
      const list = field[i] as PostingList;
      if (list.stamp !== stamp) {
        list.stamp = stamp;
        list.pending = 0;
        if (count < lists.length) lists[count] = list;
        else lists.push(list);
        count++;
      }
      list.pending += norm;
    }
  }

  const result: DocumentTerms = {
    get lists() {
      return lists;
    },
    get count() {
      return count;
    },
    get nameCount() {
      return nameCount;
    },
  };

  return {
    collect(doc) {
      if (postings.compactions !== compactions) {
        compactions = postings.compactions;
        words.clear();
      }
      stamp++;
      count = 0;
      addField(doc.name, weights.name, REFERENCE_LENGTH.name);
      nameCount = count;
      addField(doc.namespace, weights.namespace, REFERENCE_LENGTH.namespace);
      // The tags are one field: scanning each after the other splits them as joined with spaces.
      if (doc.tags.length > 0 && weights.tags !== 0) {
        fieldCount = 0;
        for (const tag of doc.tags) scanWords(tag, visit);
        addScanned(weights.tags, REFERENCE_LENGTH.tags);
      }
      addField(doc.title, weights.title, REFERENCE_LENGTH.title);
      addField(doc.description, weights.description, REFERENCE_LENGTH.description);
      return result;
    },
  };
}
