import { compareHits, type SearchDocument, type SearchHit } from './searcher.js';
import { isQueryFiller, tokenize } from './tokenize.js';

/**
 * Where a request turns to another need: a comma or semicolon, the end of a sentence (`.`, `?`
 * or `!` before a space: `who reported it? assign it to me`, not `example.com`), or a joining
 * word (`and`, `then`, `also`, `plus`, `as well as`, `but`, `before`, `after`). Over-splitting
 * a single need (`latitude and longitude`) costs little, because the whole request is always
 * searched too.
 */
const CLAUSE_BREAK =
  /\s*(?:[,;]+|[.?!]+(?=\s)|\b(?:and then|and also|as well as|then|and|also|plus|but|before|after)\b)\s*/i;

/** At most this many intents are searched apart; the rest of a long request is one clause. */
export const MAX_INTENTS = 4;

/**
 * The intents of a request: for each clause that has a meaningful word, its terms (as
 * {@link tokenize} makes them, filler dropped). Fewer than two means one intent.
 */
export function intentsOf(text: string): string[][] {
  // Most requests have no break at all: they pay one scan, not a second tokenising.
  if (!CLAUSE_BREAK.test(text)) return [];
  const intents: string[][] = [];
  for (const clause of text.split(CLAUSE_BREAK)) {
    const terms = tokenize(clause).filter((term) => !isQueryFiller(term));
    if (terms.length === 0) continue;
    if (intents.length === MAX_INTENTS) (intents[MAX_INTENTS - 1] as string[]).push(...terms);
    else intents.push(terms);
  }
  return intents;
}

/**
 * Merges the hits of the whole request with those of each intent: every list is scaled so its
 * best hit is 1, an intent's hits count `intentWeight` of that, and a tool keeps its best
 * scaled score. So each intent's best tool reaches the top few even when another intent's
 * rarer words decide the whole request's ranking, and a tool matching the whole request keeps
 * its place. Scores come back on the whole request's scale; ties by ascending ID.
 */
export function mergeIntentHits(
  whole: readonly SearchHit[],
  perIntent: readonly (readonly SearchHit[])[],
  limit: number,
  intentWeight: number,
): SearchHit[] {
  const best = new Map<string, number>();
  const offer = (hits: readonly SearchHit[], weight: number): void => {
    const top = hits[0]?.score ?? 0;
    if (top <= 0) return;
    for (const { id, score } of hits) {
      const scaled = (weight * score) / top;
      if (scaled > (best.get(id) ?? 0)) best.set(id, scaled);
    }
  };
  offer(whole, 1);
  for (const hits of perIntent) offer(hits, intentWeight);
  const scale = whole[0]?.score ?? 1;
  const merged = [...best].map(([id, score]) => ({ id, score: score * scale })).sort(compareHits);
  return merged.slice(0, limit);
}

/**
 * Re-ranks `hits` (best first) so the first `limit` cover as many intents as they can: picked
 * one at a time, each time the hit with the best `score / best score + diversity · number of
 * intents it serves that no earlier pick served`. A request's single need (every hit serves the
 * same intents) keeps its order; with two needs, the best tool of the second moves up past
 * further tools for the first. `intentsOf(id)` is a bit mask of the intents a tool serves.
 */
export function diversifyByIntent(
  hits: readonly SearchHit[],
  intentsServed: (id: string) => number,
  limit: number,
  diversity: number,
  coverage?: WordCoverage,
): SearchHit[] {
  const top = hits[0]?.score ?? 0;
  if (top <= 0 || (diversity === 0 && coverage === undefined)) return hits.slice(0, limit);
  const masks = hits.map((hit) => intentsServed(hit.id));
  const words = coverage === undefined ? undefined : hits.map((hit) => coverage.wordsOf(hit.id));
  let coveredWords = 0;
  const taken = new Uint8Array(hits.length);
  const out: SearchHit[] = [];
  let covered = 0;
  while (out.length < limit && out.length < hits.length) {
    let best = -1;
    let bestValue = -Infinity;
    for (let i = 0; i < hits.length; i++) {
      if (taken[i] === 1) continue;
      const fresh = bitCount((masks[i] as number) & ~covered);
      let value = (hits[i] as SearchHit).score / top + diversity * fresh;
      if (coverage !== undefined && words !== undefined) {
        value +=
          coverage.weight * maskWeight((words[i] as number) & ~coveredWords, coverage.weights);
      }
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    taken[best] = 1;
    covered |= masks[best] as number;
    if (words !== undefined) coveredWords |= words[best] as number;
    out.push(hits[best] as SearchHit);
  }
  return out;
}

/** Each query word a tool matches, and how much covering a word no earlier result matched counts. */
export interface WordCoverage {
  /** Bit mask of the query words (by position) the tool matches. */
  readonly wordsOf: (id: string) => number;
  /** Each word's share of the query, summing to 1. */
  readonly weights: Float64Array;
  /** How much covering the whole query counts, against a score of 1 for the best hit. */
  readonly weight: number;
}

function maskWeight(mask: number, weights: Float64Array): number {
  let sum = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) {
    sum += weights[31 - Math.clz32(rest & -rest)] as number;
  }
  return sum;
}

function bitCount(mask: number): number {
  let count = 0;
  for (let rest = mask; rest !== 0; rest &= rest - 1) count++;
  return count;
}

/**
 * The intents `doc` serves, as a bit mask: those with a term (or synonym) in its text. `cache`
 * keeps each document's terms for the rest of one search, which asks about a tool twice.
 */
export function intentMask(
  doc: SearchDocument | undefined,
  intentTerms: readonly ReadonlySet<string>[],
  cache?: Map<SearchDocument, ReadonlySet<string>>,
): number {
  if (doc === undefined) return 0;
  let terms = cache?.get(doc);
  if (terms === undefined) {
    const text = [doc.namespace, doc.name, doc.title, doc.description, ...doc.tags].join(' ');
    terms = new Set(tokenize(text));
    cache?.set(doc, terms);
  }
  let mask = 0;
  intentTerms.forEach((wanted, i) => {
    for (const term of wanted) {
      if (terms.has(term)) {
        mask |= 1 << i;
        break;
      }
    }
  });
  return mask;
}

/**
 * Gives each intent's first `slots` tools of its own ranked list (`perIntent[i]`, best first) a
 * place right after the first result: the order becomes the first of `ranked`, then every
 * intent's best tool not yet there (by score), then every intent's second (by score), and so on
 * for `slots` rounds, then the rest of `ranked`. So a request's second need is never crowded out
 * by further tools for its first, even by tools that also match the second clause's words. The
 * order does not depend on `limit`, so a shorter page is a prefix of a longer one.
 */
export function keepIntentTop(
  ranked: readonly SearchHit[],
  perIntent: readonly (readonly SearchHit[])[],
  scoreOf: (id: string) => number,
  limit: number,
  slots: number,
): SearchHit[] {
  const first = ranked[0];
  if (first === undefined) return [];
  const placed = new Set<string>([first.id]);
  const out = [first];
  for (let round = 0; round < slots && out.length < limit; round++) {
    const promoted: SearchHit[] = [];
    for (const hits of perIntent) {
      const hit = hits[round];
      if (hit !== undefined && !placed.has(hit.id)) {
        placed.add(hit.id);
        promoted.push({ id: hit.id, score: scoreOf(hit.id) });
      }
    }
    out.push(...promoted.sort(compareHits));
  }
  for (const hit of ranked) {
    if (out.length >= limit) break;
    if (!placed.has(hit.id)) out.push(hit);
  }
  return out.slice(0, limit);
}
