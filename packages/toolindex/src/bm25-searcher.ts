import { ToolError } from '@toolplane/toolmodel';
import {
  matchesFilter,
  type SearchDocument,
  type Searcher,
  type SearcherQuery,
  type SearchHit,
} from './searcher.js';
import { tokenize } from './tokenize.js';

/** How much a term counts in each field; larger means a match there ranks higher. */
export interface FieldWeights {
  readonly name: number;
  readonly namespace: number;
  readonly tags: number;
  readonly title: number;
  readonly description: number;
}

/** Options for {@link createBm25Searcher}. */
export interface Bm25Options {
  /** Field weights; default name 5, namespace 3, tags 3, title 2, description 1. */
  readonly weights?: Partial<FieldWeights>;
  /** BM25 term-frequency saturation (default 1.2). */
  readonly k1?: number;
  /** BM25 length normalisation, 0–1 (default 0.75). */
  readonly b?: number;
}

/** The BM25 {@link Searcher}: synchronous, so its `search` returns hits directly. */
export interface Bm25Searcher extends Searcher {
  search(query: SearcherQuery): SearchHit[];
}

/** The default field weights of {@link createBm25Searcher}. */
export const DEFAULT_FIELD_WEIGHTS: FieldWeights = Object.freeze({
  name: 5,
  namespace: 3,
  tags: 3,
  title: 2,
  description: 1,
});

/**
 * One term's posting list, flat to keep it to a single allocation per term: element 0 is the
 * number of live documents holding the term (its document frequency), then `slot, weight` pairs,
 * where weight is the field-weighted term frequency. Pairs of removed documents stay until the
 * next compaction.
 */
type Posting = number[];

/** Removed documents are swept from posting lists once they outnumber the live ones. */
const COMPACT_MIN_DEAD = 1024;
/** At most this many distinct query terms are scored; the rest of a long query is ignored. */
const MAX_QUERY_TERMS = 32;

// Reused across calls: registration must not allocate a map per document.
const termWeights = new Map<string, number>();

function checkNumber(value: number, name: string, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ToolError(
      'invalid_argument',
      `${name} must be a number from ${min} to ${max}, got ${value}`,
    );
  }
  return value;
}

/**
 * Creates the default {@link Searcher}: BM25 ranking over an inverted index of each tool's
 * name, namespace, tags, title and description, with field weights (a term in the name counts
 * most). Terms come from {@link tokenize}. Upserts and removals are incremental; queries touch
 * only the posting lists of their terms, so cost follows the number of matching tools, not the
 * catalogue size. Indexing is deferred: upserts are queued and indexed by the next search, so
 * registering thousands of tools costs no tokenising until someone searches.
 *
 * @throws {ToolError} `invalid_argument` for a weight, `k1` or `b` out of range.
 */
export function createBm25Searcher(options: Bm25Options = {}): Bm25Searcher {
  const weights: FieldWeights = { ...DEFAULT_FIELD_WEIGHTS, ...options.weights };
  for (const [field, weight] of Object.entries(weights))
    checkNumber(weight as number, `weights.${field}`, 0, 1000);
  const k1 = checkNumber(options.k1 ?? 1.2, 'k1', 0, 100);
  const b = checkNumber(options.b ?? 0.75, 'b', 0, 1);

  // Per slot: the document, and its term count (-1 once removed).
  let docs: (SearchDocument | undefined)[] = [];
  let lengths: number[] = [];
  const slotOf = new Map<string, number>();
  // Upserts wait here until the next search: registration stays cheap, and a catalogue that is
  // loaded in bulk is indexed in one pass, only if anyone searches it.
  const pending = new Map<string, SearchDocument>();
  const postings = new Map<string, Posting>();
  let totalLength = 0;
  let dead = 0;
  let scores = new Float64Array(0);
  let touched = new Int32Array(0);

  function addTerms(text: string | undefined, weight: number): number {
    if (text === undefined || weight === 0) return 0;
    const terms = tokenize(text);
    for (const term of terms) termWeights.set(term, (termWeights.get(term) ?? 0) + weight);
    return terms.length;
  }

  function collectTerms(doc: SearchDocument): number {
    termWeights.clear();
    let length = addTerms(doc.name, weights.name);
    length += addTerms(doc.namespace, weights.namespace);
    for (const tag of doc.tags) length += addTerms(tag, weights.tags);
    length += addTerms(doc.title, weights.title);
    length += addTerms(doc.description, weights.description);
    return length;
  }

  /** Takes an indexed document out of the inverted index. */
  function unindex(id: string): void {
    const slot = slotOf.get(id);
    if (slot === undefined) return;
    const doc = docs[slot];
    slotOf.delete(id);
    docs[slot] = undefined;
    totalLength -= lengths[slot] ?? 0;
    lengths[slot] = -1;
    dead++;
    if (doc !== undefined) {
      collectTerms(doc);
      for (const term of termWeights.keys()) {
        const posting = postings.get(term);
        if (posting !== undefined) posting[0] = (posting[0] ?? 1) - 1;
      }
      termWeights.clear();
    }
    if (dead >= COMPACT_MIN_DEAD && dead > slotOf.size) compact();
  }

  /** Renumbers live documents densely and drops dead pairs from every posting list. */
  function compact(): void {
    const renumber = new Int32Array(docs.length).fill(-1);
    const liveDocs: SearchDocument[] = [];
    const liveLengths: number[] = [];
    docs.forEach((doc, slot) => {
      if (doc === undefined) return;
      renumber[slot] = liveDocs.length;
      slotOf.set(doc.id, liveDocs.length);
      liveDocs.push(doc);
      liveLengths.push(lengths[slot] ?? 0);
    });
    for (const [term, posting] of postings) {
      if (posting[0] === 0) {
        postings.delete(term);
        continue;
      }
      let write = 1;
      for (let read = 1; read < posting.length; read += 2) {
        const next = renumber[posting[read] ?? 0] ?? -1;
        if (next < 0) continue;
        posting[write++] = next;
        posting[write++] = posting[read + 1] ?? 0;
      }
      posting.length = write;
    }
    docs = liveDocs;
    lengths = liveLengths;
    dead = 0;
  }

  function index(doc: SearchDocument): void {
    const slot = docs.length;
    const length = collectTerms(doc);
    for (const [term, weight] of termWeights) {
      const posting = postings.get(term);
      if (posting === undefined) {
        postings.set(term, [1, slot, weight]);
      } else {
        posting[0] = (posting[0] ?? 0) + 1;
        posting.push(slot, weight);
      }
    }
    termWeights.clear();
    docs.push(doc);
    lengths.push(length);
    slotOf.set(doc.id, slot);
    totalLength += length;
  }

  /** Indexes the documents upserted since the last search, in upsert order. */
  function flush(): void {
    if (pending.size === 0) return;
    for (const doc of pending.values()) index(doc);
    pending.clear();
  }

  function upsert(doc: SearchDocument): void {
    unindex(doc.id);
    // Re-inserting moves the document to the end, so indexing order follows the latest upsert.
    pending.delete(doc.id);
    pending.set(doc.id, doc);
  }

  function remove(id: string): void {
    if (!pending.delete(id)) unindex(id);
  }

  function search(query: SearcherQuery): SearchHit[] {
    flush();
    const docCount = slotOf.size;
    if (docCount === 0 || query.limit <= 0) return [];
    const terms = [...new Set(tokenize(query.text))].slice(0, MAX_QUERY_TERMS);
    if (scores.length < docs.length) {
      scores = new Float64Array(docs.length * 2);
      touched = new Int32Array(docs.length * 2);
    }
    const filtered = query.namespace !== undefined || query.tags !== undefined;
    const averageLength = Math.max(totalLength / docCount, 1);
    let touchedCount = 0;
    for (const term of terms) {
      const posting = postings.get(term);
      const live = posting?.[0] ?? 0;
      if (posting === undefined || live === 0) continue;
      const idf = Math.log(1 + (docCount - live + 0.5) / (live + 0.5));
      for (let i = 1; i < posting.length; i += 2) {
        const slot = posting[i] ?? 0;
        const length = lengths[slot] ?? -1;
        if (length < 0) continue;
        if (filtered && !matchesFilter(docs[slot] as SearchDocument, query)) continue;
        const tf = posting[i + 1] ?? 0;
        const score = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / averageLength));
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot] = (scores[slot] ?? 0) + score;
      }
    }
    const hits = topHits(touched.subarray(0, touchedCount), scores, docs, query.limit);
    for (let i = 0; i < touchedCount; i++) scores[touched[i] ?? 0] = 0;
    return hits;
  }

  return { upsert, remove, search };
}

/**
 * The best `limit` hits among `candidates`, best first, ties by ascending id. A bounded min-heap
 * (worst hit on top) keeps this O(n log limit) rather than sorting every match.
 */
function topHits(
  candidates: Int32Array,
  scores: Float64Array,
  docs: readonly (SearchDocument | undefined)[],
  limit: number,
): SearchHit[] {
  const heap: SearchHit[] = [];
  const at = (i: number): SearchHit => heap[i] as SearchHit;
  // `a` ranks below `c`: lower score, or equal score and a later id.
  const worse = (a: SearchHit, c: SearchHit): boolean =>
    a.score < c.score || (a.score === c.score && a.id > c.id);
  const swap = (i: number, j: number): void => {
    const held = at(i);
    heap[i] = at(j);
    heap[j] = held;
  };
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && worse(at(left), at(least))) least = left;
      if (right < heap.length && worse(at(right), at(least))) least = right;
      if (least === i) return;
      swap(i, least);
      i = least;
    }
  };
  for (const slot of candidates) {
    const score = scores[slot] ?? 0;
    const id = docs[slot]?.id ?? '';
    if (heap.length === limit) {
      const top = at(0);
      // Most candidates lose to the current worst; reject them without allocating.
      if (score < top.score || (score === top.score && id > top.id)) continue;
      heap[0] = { id, score };
      siftDown(0);
      continue;
    }
    heap.push({ id, score });
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!worse(at(i), at(parent))) break;
      swap(i, parent);
      i = parent;
    }
  }
  const sorted = new Array<SearchHit>(heap.length);
  for (let i = heap.length - 1; i >= 0; i--) {
    sorted[i] = at(0);
    const last = heap.pop() as SearchHit;
    if (heap.length > 0) {
      heap[0] = last;
      siftDown(0);
    }
  }
  return sorted;
}
