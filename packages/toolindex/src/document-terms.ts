import type { FieldWeights } from './bm25-options.js';
import type { Postings } from './postings.js';
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
 * The terms of one document being indexed, by their numbers in the postings, each with its
 * BM25F pseudo term frequency, in the order the document first uses them.
 */
export interface DocumentTerms {
  /** The term numbers; only the first {@link DocumentTerms.count} are this document's. */
  readonly terms: Int32Array;
  /** Each term's pseudo term frequency, by term number (only this document's terms are set). */
  readonly frequencies: Float64Array;
  readonly count: number;
  /** The first this many of them are terms of the name. */
  readonly nameCount: number;
}

/** Gathers a document's terms for {@link createBm25Searcher}'s index, allocating nothing. */
export interface TermCollector {
  /** Gathers `doc`'s terms; the result is overwritten by the next call. */
  collect(doc: SearchDocument): DocumentTerms;
}

/** A stop word's value in the table of words: no term. */
const NO_TERM = -1;

/**
 * Creates the term collector of one searcher's `postings`. Words are resolved to their term
 * numbers through a {@link WordTable} of the words met so far, so a known word costs a hash of its
 * characters and no string; an unknown one is sliced, stemmed (with the same {@link termOf} the
 * queries use, so both sides agree) and remembered. The table is dropped when the postings are
 * compacted, as compaction forgets the terms no document holds any more. What is gathered per
 * term sits in typed arrays by term number, not in objects, so a document's twenty-odd terms
 * touch a few compact arrays.
 */
export function createTermCollector(
  postings: Postings,
  weights: FieldWeights,
  b: number,
): TermCollector {
  const words = createWordTable<number>();
  let compactions = postings.compactions;
  // This document's terms, in first-use order.
  let terms = new Int32Array(64);
  let count = 0;
  let nameCount = 0;
  // By term number: the frequency gathered for the document being indexed, and which indexing
  // pass gathered it (so nothing needs clearing between documents).
  let frequencies = new Float64Array(256);
  let stamps = new Int32Array(256);
  // The current field's terms, one per word (repeats included), before its length is known.
  let field = new Int32Array(64);
  let fieldCount = 0;
  let stamp = 0;
  // The namespace last scanned and its field's terms: tools come server by server, so the next
  // tool's namespace is most often the same string, and its words need no scanning again.
  let lastNamespace: string | undefined;
  let namespaceTerms = new Int32Array(8);
  let namespaceCount = 0;

  function termOfWord(text: string, start: number, end: number, hasUpper: boolean): number {
    const word = text.slice(start, end);
    const lower = hasUpper ? word.toLowerCase() : word;
    const found = termOf(lower);
    const term = found === null ? NO_TERM : postings.listFor(found);
    words.add(lower, term);
    if (term >= stamps.length) {
      const size = Math.max(stamps.length * 2, term + 1);
      const grownStamps = new Int32Array(size);
      grownStamps.set(stamps);
      stamps = grownStamps;
      const grownFrequencies = new Float64Array(size);
      grownFrequencies.set(frequencies);
      frequencies = grownFrequencies;
    }
    return term;
  }

  const visit = (
    text: string,
    start: number,
    end: number,
    hasUpper: boolean,
    hash: number,
  ): void => {
    let term = words.findHashed(hash, text, start, end);
    if (term === MISSING) term = termOfWord(text, start, end, hasUpper);
    if (term === NO_TERM) return;
    if (fieldCount === field.length) {
      const grown = new Int32Array(field.length * 2);
      grown.set(field);
      field = grown;
    }
    field[fieldCount++] = term;
  };

  function addField(text: string | undefined, weight: number, reference: number): void {
    if (text === undefined || weight === 0) return;
    fieldCount = 0;
    scanWords(text, visit);
    addScanned(weight, reference);
  }

  function addNamespace(namespace: string | undefined): void {
    if (namespace === undefined || weights.namespace === 0) return;
    if (namespace === lastNamespace) {
      // A field array holds at least as many terms as the namespace had when it was scanned.
      for (let i = 0; i < namespaceCount; i++) field[i] = namespaceTerms[i] as number;
      fieldCount = namespaceCount;
    } else {
      fieldCount = 0;
      scanWords(namespace, visit);
      if (fieldCount > namespaceTerms.length) namespaceTerms = new Int32Array(field.length);
      for (let i = 0; i < fieldCount; i++) namespaceTerms[i] = field[i] as number;
      namespaceCount = fieldCount;
      lastNamespace = namespace;
    }
    addScanned(weights.namespace, REFERENCE_LENGTH.namespace);
  }

  /** Adds the field scanned into `field` (its length known now) to the document's terms. */
  function addScanned(weight: number, reference: number): void {
    if (fieldCount === 0) return;
    const norm = weight / (1 - b + (b * fieldCount) / reference);
    for (let i = 0; i < fieldCount; i++) {
      const term = field[i] as number;
      if (stamps[term] !== stamp) {
        stamps[term] = stamp;
        frequencies[term] = 0;
        if (count === terms.length) {
          const grown = new Int32Array(terms.length * 2);
          grown.set(terms);
          terms = grown;
        }
        terms[count++] = term;
      }
      frequencies[term] = (frequencies[term] as number) + norm;
    }
  }

  const result: DocumentTerms = {
    get terms() {
      return terms;
    },
    get frequencies() {
      return frequencies;
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
        lastNamespace = undefined;
      }
      stamp++;
      count = 0;
      addField(doc.name, weights.name, REFERENCE_LENGTH.name);
      nameCount = count;
      addNamespace(doc.namespace);
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
