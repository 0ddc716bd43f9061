import type { PostingList } from './postings.js';
import { offerHit, type TopHits } from './top-hits.js';

/**
 * The scoring loops of {@link createBm25Searcher}, as module-level functions over typed arrays.
 * Every searcher shares them, so V8 compiles them once per process: a searcher created later
 * (a new index, a rebuilt one) searches with already-optimised code instead of running its
 * first queries in the interpreter while a large closure is compiled again. They are small for
 * the same reason: a small function is optimised after fewer calls and compiles quickly.
 *
 * @module
 */

/** A tool that fails the namespace or tag filter, marked so later terms skip it at once. */
export const EXCLUDED = 2 ** 31;

/**
 * Per-slot search scratch of one searcher. `acc` holds, side by side so one cache line serves
 * both, [2s] the score and [2s+1] the bit set of query words matched (or {@link EXCLUDED});
 * `nameHits` counts the query words found in the name; `touched` lists the slots scored so far.
 * Every entry is zero between searches.
 */
export interface Scratch {
  acc: Float64Array;
  touched: Int32Array;
  nameHits: Uint8Array;
}

/**
 * Adds one posting list, weighted by `scale`, for the query word `bit`; returns the new count
 * of touched slots. With `create` false, only slots already touched are scored. `excluded`,
 * when given, is asked once per new slot whether the query's filters leave it out.
 */
export function addList(
  list: PostingList,
  scale: number,
  bit: number,
  once: boolean,
  create: boolean,
  scratch: Scratch,
  touchedCount: number,
  excluded: ((slot: number) => boolean) | undefined,
): number {
  const { acc, touched, nameHits } = scratch;
  const { slots, values, length } = list;
  let count = touchedCount;
  for (let i = 0; i < length; i++) {
    const slot = slots[i] as number;
    const at = slot * 2;
    const mask = acc[at + 1] as number;
    let value = values[i] as number;
    // A term of the name is stored negated.
    const inName = value < 0;
    if (inName) value = -value;
    if (mask === 0) {
      if (!create) continue;
      touched[count++] = slot;
      if (excluded !== undefined && excluded(slot)) {
        acc[at + 1] = EXCLUDED;
        continue;
      }
      acc[at + 1] = bit;
      acc[at] = scale * value;
      if (inName) nameHits[slot] = 1;
      continue;
    }
    if (mask === EXCLUDED) continue;
    // A tool matching the word and a synonym (or two synonyms) counts the first match.
    const has = (mask & bit) !== 0;
    if (has && once) continue;
    if (!has) {
      acc[at + 1] = mask | bit;
      if (inName) nameHits[slot] = (nameHits[slot] as number) + 1;
    }
    acc[at] = (acc[at] as number) + scale * value;
  }
  return count;
}

/**
 * Adds one posting list to the touched slots only, finding each in the list by binary search
 * (lists are in ascending slot order): cheaper than a scan when the list is much longer.
 */
export function addToCandidates(
  list: PostingList,
  scale: number,
  bit: number,
  once: boolean,
  scratch: Scratch,
  touchedCount: number,
): void {
  const { acc, touched, nameHits } = scratch;
  const { slots, values, length } = list;
  for (let c = 0; c < touchedCount; c++) {
    const slot = touched[c] as number;
    const at = slot * 2;
    const mask = acc[at + 1] as number;
    if (mask === EXCLUDED) continue;
    const has = (mask & bit) !== 0;
    if (has && once) continue;
    let lo = 0;
    let hi = length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((slots[mid] as number) < slot) lo = mid + 1;
      else hi = mid;
    }
    if (slots[lo] !== slot) continue;
    let value = values[lo] as number;
    const inName = value < 0;
    if (inName) value = -value;
    if (!has) {
      acc[at + 1] = mask | bit;
      if (inName) nameHits[slot] = (nameHits[slot] as number) + 1;
    }
    acc[at] = (acc[at] as number) + scale * value;
  }
}

/** How the gathered scores become final ones. */
export interface Finish {
  readonly live: Uint8Array;
  readonly nameTerms: Uint8Array;
  readonly namespaceOf: Int32Array;
  /** Matched weight per bit set of query words, or undefined to add up `groupWeight`. */
  readonly maskWeight: Float64Array | undefined;
  readonly groupWeight: Float64Array;
  readonly totalWeight: number;
  readonly coverage: number;
  readonly nameMatch: number;
  readonly namespacePrior: number;
  readonly priorMatches: number;
  /** Per namespace: the sum of its tools' scores, its best score and its second best. */
  readonly stats: Float64Array;
  /** The namespaces with scores in `stats`: the first `namespaceCount`. */
  readonly namespaces: Int32Array;
  namespaceCount: number;
}

/**
 * Applies coverage and the whole-name bonus to every touched slot (marking removed and
 * filtered-out ones -1), and gathers each namespace's scores for the prior, listing the
 * namespaces met in `finish.namespaces`.
 */
export function finishScores(scratch: Scratch, touchedCount: number, finish: Finish): void {
  const { acc, touched, nameHits } = scratch;
  const { live, nameTerms, namespaceOf, maskWeight, groupWeight, totalWeight } = finish;
  const { coverage, nameMatch, namespacePrior, stats, namespaces } = finish;
  const keep = 1 - coverage;
  const perWeight = totalWeight > 0 ? coverage / totalWeight : 0;
  let namespaceCount = 0;
  for (let i = 0; i < touchedCount; i++) {
    const slot = touched[i] as number;
    const at = slot * 2;
    let mask = acc[at + 1] as number;
    if (mask === EXCLUDED || live[slot] !== 1) {
      acc[at] = -1;
      nameHits[slot] = 0;
      continue;
    }
    let score = acc[at] as number;
    if (coverage > 0 && totalWeight > 0) {
      let matched = 0;
      if (maskWeight !== undefined) matched = maskWeight[mask] as number;
      else {
        for (let g = 0; mask !== 0; g++, mask >>>= 1) {
          if ((mask & 1) !== 0) matched += groupWeight[g] as number;
        }
      }
      score *= keep + perWeight * matched;
    }
    const names = nameTerms[slot] as number;
    if (nameMatch > 0 && names > 0) {
      score *= 1 + (nameMatch * Math.min(names, nameHits[slot] as number)) / names;
    }
    nameHits[slot] = 0;
    acc[at] = score;
    if (namespacePrior > 0) {
      const namespace = namespaceOf[slot] as number;
      if (namespace >= 0) {
        // The namespace's sum of scores and its two best scores.
        const at3 = namespace * 3;
        if (stats[at3] === 0) namespaces[namespaceCount++] = namespace;
        stats[at3] = (stats[at3] as number) + score;
        if (score > (stats[at3 + 1] as number)) {
          stats[at3 + 2] = stats[at3 + 1] as number;
          stats[at3 + 1] = score;
        } else if (score > (stats[at3 + 2] as number)) stats[at3 + 2] = score;
      }
    }
  }
  finish.namespaceCount = namespaceCount;
}

/**
 * Adds each touched slot's namespace prior, offers it to `top`, and leaves the scratch and the
 * namespaces' scores zeroed for the next search.
 */
export function offerAll(
  scratch: Scratch,
  touchedCount: number,
  finish: Finish,
  top: TopHits,
): void {
  const { acc, touched } = scratch;
  const { namespaceOf, namespacePrior, priorMatches, stats, namespaces } = finish;
  for (let i = 0; i < touchedCount; i++) {
    const slot = touched[i] as number;
    const at = slot * 2;
    let score = acc[at] as number;
    acc[at] = 0;
    acc[at + 1] = 0;
    if (score < 0) continue;
    if (namespacePrior > 0) {
      const namespace = namespaceOf[slot] as number;
      if (namespace >= 0) {
        // The other tools' average over `priorMatches`, at most the best of them.
        const at3 = namespace * 3;
        const best = stats[at3 + 1] as number;
        const otherBest = score >= best ? (stats[at3 + 2] as number) : best;
        const average = ((stats[at3] as number) - score) / priorMatches;
        score += namespacePrior * (average < otherBest ? average : otherBest);
      }
    }
    offerHit(top, slot, score);
  }
  for (let i = 0; i < finish.namespaceCount; i++) {
    const at3 = (namespaces[i] as number) * 3;
    stats[at3] = 0;
    stats[at3 + 1] = 0;
    stats[at3 + 2] = 0;
  }
}
