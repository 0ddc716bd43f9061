import { checkNumber } from './check-number.js';
import { DEFAULT_FIELD_WEIGHTS, type Bm25Options, type FieldWeights } from './bm25-options.js';
import { createTermCollector } from './document-terms.js';
import { createPostings, type SlotDirectory } from './postings.js';
import {
  matchesFilter,
  type SearchDocument,
  type Searcher,
  type SearcherQuery,
  type SearchHit,
} from './searcher.js';
import { synonymTableOf, type Expansion } from './synonyms.js';
import {
  diversifyByIntent,
  intentMask,
  intentsOf,
  mergeIntentHits,
  keepIntentTop,
  type WordCoverage,
} from './intents.js';
import { isQueryFiller, tokenize } from './tokenize.js';
import { correctTypo } from './typo.js';
import {
  addList,
  addToCandidates,
  createScratch,
  finishScores,
  NAMESPACE_STATS,
  offerAll,
  type Finish,
  type Scratch,
} from './score-kernels.js';
import { createTopHits, takeHits } from './top-hits.js';

/** The BM25 {@link Searcher}: synchronous, so its `search` returns hits directly. */
export interface Bm25Searcher extends Searcher {
  search(query: SearcherQuery): SearchHit[];
  specificity(term: string): number;
}

/**
 * The BM25 searcher an index created for itself, with its slots kept by the index (see
 * `createIndex`): the index knows whether a tool is new, so it adds without looking for an
 * older version, and removes before it replaces its record.
 */
export interface LinkedBm25Searcher extends Bm25Searcher {
  /** Indexes a document the searcher does not hold (the index removed any older version). */
  add(doc: SearchDocument): void;
}

/** At most this many distinct query words are scored; the rest of a long query is ignored. */
const MAX_QUERY_TERMS = 30; // bits 0–29 of an int32 mask

/** One term looked up for a query word, and how its matches count. */
interface Lookup {
  readonly term: string;
  readonly factor: number;
  /**
   * Whether a tool that already matched this query word (through another of its terms) is
   * skipped: true for the word and the first term of each synonym, false for the later terms of
   * a multi-word synonym, which complete the same match.
   */
  readonly once: boolean;
}

/** One posting list (by term number) of a query word, and how much its matches count. */
interface Resolved {
  readonly term: number;
  readonly scale: number;
  readonly once: boolean;
}

/** Up to this many query words, the weight of each set of matched words is tabulated. */
const MASK_TABLE_WORDS = 10;

/**
 * A query word weighing less than this share of the query's heaviest word, met once there are
 * enough candidates, only adds to the tools already found instead of finding new ones. From 0.3
 * to 0.4 no tuning or paraphrase request changed its top 5 at 10k or 100k tools, and the median
 * query at 100k touched about a third fewer tools (0.29 → 0.20 ms, each query's best); 0.45
 * began to lose paraphrases.
 */
const PRUNE_RATIO = 0.4;

/**
 * A multi-intent request re-ranks at least this many of its best tools over its intents; the same
 * pool for every limit up to a quarter of it, so a shorter page is a prefix of a longer one.
 */
const INTENT_POOL = 64;

/** Below this many candidates, every query word still finds new ones. */
const PRUNE_MIN_CANDIDATES = 64;
/** A list is searched per candidate when it is this many times longer than the candidates. */
const BINARY_SEARCH_FACTOR = 12;

/**
 * Creates the default {@link Searcher}: BM25F ranking over an inverted index of each tool's name,
 * namespace, tags, title and description (each field length-normalised on its own, then
 * weighted: a term in the name counts most). Terms come from {@link tokenize}; query words are
 * expanded with synonyms, and tools matching more of the query's rare words are preferred.
 *
 * The index is maintained on every upsert and removal, so the first search after a bulk load
 * pays nothing extra. Queries touch only the posting lists of their terms, so their cost follows
 * the number of matching tools, not the catalogue size.
 *
 * @throws {ToolError} `invalid_argument` for a weight, `k1`, `b`, `synonymWeight`,
 * `aliasWeight`, `typoWeight`, `coverage` or an `intent…` option out of range, or synonyms or aliases that are not
 * arrays of strings.
 */
export function createBm25Searcher(options: Bm25Options = {}): Bm25Searcher {
  // Without the index's fast path: `add` would skip looking for an older version.
  const { upsert, remove, search, specificity } = bm25Functions(options, undefined);
  return { upsert, remove, search, specificity };
}

/**
 * {@link createBm25Searcher} keeping its documents' slots in `slots` (a map of its own when
 * undefined). Internal: the index's fast path when it creates its searcher itself.
 *
 * @throws {ToolError} `invalid_argument` as {@link createBm25Searcher}.
 */
export function createLinkedBm25Searcher(
  options: Bm25Options,
  slots: SlotDirectory | undefined,
): LinkedBm25Searcher {
  return bm25Functions(options, slots);
}

/** The functions of a BM25 searcher (plain functions: none of them reads `this`). */
interface Bm25Functions {
  readonly upsert: (doc: SearchDocument) => void;
  readonly add: (doc: SearchDocument) => void;
  readonly remove: (id: string) => void;
  readonly search: (query: SearcherQuery) => SearchHit[];
  readonly specificity: (term: string) => number;
}

function bm25Functions(options: Bm25Options, slots: SlotDirectory | undefined): Bm25Functions {
  const weights: FieldWeights = { ...DEFAULT_FIELD_WEIGHTS, ...options.weights };
  for (const [field, weight] of Object.entries(weights))
    checkNumber(weight as number, `weights.${field}`, 0, 1000);
  const k1 = checkNumber(options.k1 ?? 1.2, 'k1', 0, 100);
  const b = checkNumber(options.b ?? 0.75, 'b', 0, 1);
  const synonymWeight = checkNumber(options.synonymWeight ?? 0.6, 'synonymWeight', 0, 1);
  const aliasWeight = checkNumber(options.aliasWeight ?? 1, 'aliasWeight', 0, 1);
  const expand = synonymWeight > 0 || aliasWeight > 0;
  const typoWeight = checkNumber(options.typoWeight ?? 0, 'typoWeight', 0, 1);
  const coverage = checkNumber(options.coverage ?? 0.5, 'coverage', 0, 1);
  const namespacePrior = checkNumber(options.namespacePrior ?? 0.5, 'namespacePrior', 0, 1);
  const nameMatch = checkNumber(options.nameMatch ?? 0.3, 'nameMatch', 0, 10);
  const intentWeight = checkNumber(options.intents ?? 0.3, 'intents', 0, 1);
  const intentContext = checkNumber(options.intentContext ?? 0.2, 'intentContext', 0, 1);
  const intentDiversity = checkNumber(options.intentDiversity ?? 0.6, 'intentDiversity', 0, 1);
  const intentCoverage = checkNumber(options.intentCoverage ?? 1, 'intentCoverage', 0, 2);
  const intentSlots = Math.round(checkNumber(options.intentSlots ?? 1, 'intentSlots', 0, 8));
  const priorMatches = Math.round(
    checkNumber(options.namespacePriorMatches ?? 8, 'namespacePriorMatches', 1, 100),
  );

  // Built on the first search: an index that is only listed (a gateway's start, a one-shot
  // `tools list`) never pays for it.
  const synonymsOf = synonymTableOf(options.synonyms, options.aliases);
  let namespaceStats = new Float64Array(0);
  let namespaceList = new Int32Array(0);

  const postings = createPostings(slots);
  // Search scratch, zero between searches; grown on upsert so no search pays for it.
  let work: Scratch = createScratch(0);

  const collector = createTermCollector(postings, weights, b);
  // The scores of the document being added, by its terms' order (see `Postings.appendAll`).
  let scores = new Float64Array(64);

  function upsert(doc: SearchDocument): void {
    remove(doc.id);
    add(doc);
  }

  function add(doc: SearchDocument): void {
    const { terms, frequencies, count, nameCount } = collector.collect(doc);
    const slot = postings.addDocument(doc, nameCount);
    // Search scratch grows here, by doubling, so no search ever pays for allocating it.
    if (work.denseOf.length <= slot) work = createScratch(Math.max(1024, (slot + 1) * 2));
    const namespaces = postings.namespaceCount;
    if (namespacePrior > 0 && namespaceStats.length < namespaces * NAMESPACE_STATS) {
      namespaceStats = new Float64Array(Math.max(64, namespaces * 2) * NAMESPACE_STATS).fill(0);
      namespaceList = new Int32Array(namespaceStats.length / NAMESPACE_STATS).fill(0);
    }
    // Saturated once, here: a query then only multiplies by idf and adds. A term of the name
    // is stored negated, so a query can count how much of a tool's name it matched.
    if (scores.length < count) scores = new Float64Array(Math.max(count, scores.length * 2));
    for (let i = 0; i < count; i++) {
      const tf = frequencies[terms[i] as number] as number;
      const value = (tf * (k1 + 1)) / (tf + k1);
      scores[i] = i < nameCount ? -value : value;
    }
    postings.appendAll(slot, terms, scores, count);
  }

  function remove(id: string): void {
    const doc = postings.documentOf(id);
    if (doc === undefined) return;
    const { terms, count } = collector.collect(doc);
    postings.removeDocument(id, terms, count);
  }

  /**
   * The lookups of each distinct query word: the word, then its synonyms. Two adjacent words
   * that are a synonym together (`money back`, `out of office`) add a group of their own, of
   * that phrase's synonyms.
   */
  function groupsOf(text: string): { groups: Lookup[][]; words: string[] } {
    const { table: synonyms, hasPhrases } = synonymsOf();
    let terms = tokenize(text);
    // Filler words go, unless the request is nothing but filler.
    const meaningful = terms.filter((term) => !isQueryFiller(term));
    if (meaningful.length > 0) terms = meaningful;
    const words = [...new Set(terms)].slice(0, MAX_QUERY_TERMS);
    const groups = words.map((word) => {
      const lookups: Lookup[] = [{ term: word, factor: 1, once: true }];
      if (expand) addSynonyms(lookups, synonyms.get(word));
      if (typoWeight > 0 && lookups.length === 1 && postings.df(word) === 0) {
        const corrected = correctTypo(word, dfOf);
        if (corrected !== undefined) {
          lookups.push({ term: corrected, factor: typoWeight, once: true });
          if (expand) addSynonyms(lookups, synonyms.get(corrected));
        }
      }
      return lookups;
    });
    const groupWords = [...words];
    if (expand && hasPhrases) {
      const seen = new Set<string>();
      for (let i = 1; i < terms.length && groups.length < MAX_QUERY_TERMS; i++) {
        const phrase = `${terms[i - 1] as string} ${terms[i] as string}`;
        const expansions = synonyms.get(phrase);
        if (expansions === undefined || seen.has(phrase)) continue;
        seen.add(phrase);
        const lookups: Lookup[] = [];
        addSynonyms(lookups, expansions);
        groups.push(lookups);
        groupWords.push(phrase);
      }
    }
    return { groups, words: groupWords };
  }

  /** `groups` with the words outside `focus` counting only `intentContext` as much. */
  function focused(
    groups: readonly Lookup[][],
    words: readonly string[],
    focus: ReadonlySet<string>,
  ): Lookup[][] {
    return groups.map((lookups, g) =>
      (words[g] as string).split(' ').every((word) => focus.has(word))
        ? lookups
        : lookups.map((lookup) => ({ ...lookup, factor: lookup.factor * intentContext })),
    );
  }

  /**
   * The query words each tool matches (through any of its lookups), each word weighted by its
   * best lookup's idf: results that add words no earlier result matched are preferred, so the
   * words of a second need are not left to tools that repeat the first need's words.
   */
  function wordCoverage(
    groups: readonly Lookup[][],
    docTerms: Map<SearchDocument, ReadonlySet<string>>,
  ): WordCoverage {
    const wordTerms = groups.map((lookups) => new Set(lookups.map((lookup) => lookup.term)));
    const weights = new Float64Array(groups.length);
    let total = 0;
    groups.forEach((lookups, g) => {
      let weight = 0;
      for (const { term, factor } of lookups) {
        const df = dfOf(term);
        if (df > 0) weight = Math.max(weight, factor * idfOf(df));
      }
      weights[g] = weight;
      total += weight;
    });
    if (total > 0)
      for (let g = 0; g < weights.length; g++) weights[g] = (weights[g] as number) / total;
    return {
      wordsOf: (id) => intentMask(postings.documentOf(id), wordTerms, docTerms),
      weights,
      weight: intentCoverage,
    };
  }

  function idfOf(df: number): number {
    return Math.log(1 + (postings.size - df + 0.5) / (df + 0.5));
  }

  function dfOf(term: string): number {
    return postings.df(term);
  }

  function addSynonyms(lookups: Lookup[], expansions: readonly Expansion[] | undefined): void {
    for (const { terms, alias } of expansions ?? []) {
      const weight = alias ? aliasWeight : synonymWeight;
      if (weight === 0) continue;
      const factor = weight / terms.length;
      terms.forEach((term, i) => lookups.push({ term, factor, once: i === 0 }));
    }
  }

  function search(query: SearcherQuery): SearchHit[] {
    if (postings.size === 0 || query.limit <= 0) return [];
    const { groups, words } = groupsOf(query.text);
    const intents = intentWeight > 0 ? intentsOf(query.text) : [];
    if (intents.length < 2) return searchGroups(query, groups);
    // Each group belongs to the clause holding all its words (-1: none, e.g. a phrase across two).
    const clauseOf = words.map((word) =>
      intents.findIndex((terms) => word.split(' ').every((part) => terms.includes(part))),
    );
    const pool = { ...query, limit: Math.max(INTENT_POOL, query.limit * 4) };
    const whole = searchGroups(pool, groups, clauseOf);
    const perIntent = intents.map((terms) =>
      searchGroups(pool, focused(groups, words, new Set(terms))),
    );
    const merged = mergeIntentHits(whole, perIntent, pool.limit, intentWeight);
    const clauseTerms = intents.map(
      (_, c) =>
        new Set(
          groups.flatMap((lookups, g) => (clauseOf[g] === c ? lookups : [])).map((l) => l.term),
        ),
    );
    const docTerms = new Map<SearchDocument, ReadonlySet<string>>();
    const served = (id: string): number =>
      intentMask(postings.documentOf(id), clauseTerms, docTerms);
    const coverage = intentCoverage > 0 ? wordCoverage(groups, docTerms) : undefined;
    const diversified = diversifyByIntent(merged, served, query.limit, intentDiversity, coverage);
    const mergedScore = new Map(merged.map((hit) => [hit.id, hit.score]));
    return keepIntentTop(
      diversified,
      perIntent,
      (id) => mergedScore.get(id) ?? 0,
      query.limit,
      intentSlots,
    );
  }

  function searchGroups(
    query: SearcherQuery,
    groups: readonly Lookup[][],
    clauseOf?: readonly number[],
  ): SearchHit[] {
    const filtered = query.namespace !== undefined || query.tags !== undefined;
    // A removed tool's slot stays in the posting lists until compaction: it is left out too.
    const excluded = filtered
      ? (slot: number): boolean => {
          const doc = postings.docAt(slot);
          return doc === undefined || !matchesFilter(doc, query);
        }
      : undefined;
    const groupWeight = new Float64Array(groups.length);
    // Each group's posting lists and their scales, looked up once.
    const resolved: Resolved[][] = [];
    for (let g = 0; g < groups.length; g++) {
      const lists: Resolved[] = [];
      for (const { term, factor, once } of groups[g] as Lookup[]) {
        const id = postings.termId(term);
        const df = id < 0 ? 0 : (postings.store.dfs[id] as number);
        if (df === 0) continue;
        const idf = idfOf(df);
        const scale = idf * factor;
        if (scale > (groupWeight[g] as number)) groupWeight[g] = scale;
        lists.push({ term: id, scale, once });
      }
      resolved.push(lists);
    }
    // Rarest (highest-weighted) words first: they find the candidates. A word worth much less
    // than the best one, met once there are enough candidates, only adds to those candidates:
    // a tool matching nothing but such common words cannot reach the top.
    const order = [...groups.keys()].sort(
      (x, y) => (groupWeight[y] as number) - (groupWeight[x] as number),
    );
    const topWeight = groupWeight[order[0] ?? 0] ?? 0;
    // With clauses, a word is pruned against the heaviest word of its own clause, so the words
    // of a second need are never pruned because the first need's words are rarer.
    let pruneTop: Float64Array | undefined;
    if (clauseOf !== undefined) {
      const clauseTop = new Float64Array(MAX_QUERY_TERMS + 1);
      groups.forEach((_, g) => {
        const c = (clauseOf[g] ?? -1) + 1;
        clauseTop[c] = Math.max(clauseTop[c] as number, groupWeight[g] as number);
      });
      pruneTop = new Float64Array(groups.length);
      groups.forEach((_, g) => {
        const c = (clauseOf[g] ?? -1) + 1;
        (pruneTop as Float64Array)[g] = c === 0 ? topWeight : (clauseTop[c] as number);
      });
    }
    const minCandidates = Math.max(PRUNE_MIN_CANDIDATES, query.limit * 4);
    let touchedCount = 0;
    for (const g of order) {
      const bit = 1 << g;
      const prune =
        touchedCount >= minCandidates &&
        (groupWeight[g] as number) < PRUNE_RATIO * (pruneTop?.[g] ?? topWeight);
      const store = postings.store;
      for (const { term, scale, once } of resolved[g] as Resolved[]) {
        if (prune && touchedCount * BINARY_SEARCH_FACTOR < (store.lengths[term] as number)) {
          addToCandidates(store, term, scale, bit, once, work, touchedCount);
        } else {
          touchedCount = addList(
            store,
            term,
            scale,
            bit,
            once,
            !prune,
            work,
            touchedCount,
            excluded,
          );
        }
      }
    }
    let totalWeight = 0;
    for (const weight of groupWeight) totalWeight += weight;
    // The matched weight of every combination of query words, when there are few words.
    let maskWeight: Float64Array | undefined;
    if (coverage > 0 && groups.length <= MASK_TABLE_WORDS) {
      maskWeight = new Float64Array(1 << groups.length);
      for (let mask = 1; mask < maskWeight.length; mask++) {
        const low = Math.clz32(1) - Math.clz32(mask & -mask);
        maskWeight[mask] = (maskWeight[mask & (mask - 1)] as number) + (groupWeight[low] as number);
      }
    }
    const finish: Finish = {
      meta: postings.slotMeta,
      maskWeight,
      groupWeight,
      totalWeight,
      coverage,
      nameMatch,
      namespacePrior,
      priorMatches,
      stats: namespaceStats,
      namespaces: namespaceList,
      namespaceCount: 0,
      // Set by finishScores; present from the start so the object never changes shape (a shape
      // reached by adding a field is held weakly, and losing it throws the kernels' code away).
      loose: -1,
    };
    finishScores(work, touchedCount, finish);
    const top = createTopHits(query.limit, postings.documents, postings.idKeys);
    offerAll(work, finish, top);
    return takeHits(top);
  }

  return { upsert, add, remove, search, specificity: (term) => idfOf(dfOf(term)) };
}
