import { isLiveMeta, nameTermsOf, namespaceOf, type PostingStore } from './postings.js';
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
export const EXCLUDED = 1 << 30; // above the query-word bits 0–29

/**
 * Search scratch of one searcher. A search gives each tool it touches the next dense index
 * (`denseOf[slot]` holds it plus one, zero meaning untouched) and keeps that tool's figures side by
 * side at the dense index: its slot, score, the bit set of query words matched (or
 * {@link EXCLUDED}), how many query words it found in its name, and (once scored) the next
 * touched tool of its namespace. So finishing and ranking read them in order instead of jumping
 * about a catalogue-sized array; only `denseOf` is per slot, and a search leaves it zero again.
 * The dense arrays need no clearing: a tool's first touch writes its figures.
 */
export interface Scratch {
  denseOf: Int32Array;
  touched: Int32Array;
  score: Float64Array;
  mask: Int32Array;
  nameHits: Uint8Array;
  /** The next touched tool of the same namespace (see {@link finishScores}), -1 at the end. */
  next: Int32Array;
}

/** Scratch for `slots` slots, its pages touched now so no search takes their faults. */
export function createScratch(slots: number): Scratch {
  return {
    denseOf: new Int32Array(slots).fill(0),
    touched: new Int32Array(slots).fill(0),
    score: new Float64Array(slots).fill(0),
    mask: new Int32Array(slots).fill(0),
    nameHits: new Uint8Array(slots).fill(0),
    next: new Int32Array(slots).fill(0),
  };
}

/**
 * Adds the posting list of term number `term`, weighted by `scale`, for the query word `bit`;
 * returns the new count of touched tools. With `create` false, only tools already touched are
 * scored. `excluded`, when given, is asked once per new tool whether the query's filters leave
 * it out.
 */
export function addList(
  store: PostingStore,
  term: number,
  scale: number,
  bit: number,
  once: boolean,
  create: boolean,
  scratch: Scratch,
  touchedCount: number,
  excluded: ((slot: number) => boolean) | undefined,
): number {
  const { denseOf, touched, score, mask, nameHits } = scratch;
  const { slots, values } = store;
  const start = (store.starts[term] as number) * 2;
  const end = start + (store.lengths[term] as number) * 2;
  let count = touchedCount;
  for (let p = start; p < end; p += 2) {
    const slot = slots[p] as number;
    // A term of the name is stored negated: its sign bit, read through the pool's integer view,
    // is the name hit to count (no branch, which name and other postings mixed would mispredict).
    const inName = (slots[p + 1] as number) >>> 31;
    const value = Math.abs(values[p + 1] as number);
    const at = (denseOf[slot] as number) - 1;
    if (at < 0) {
      if (!create) continue;
      const next = count++;
      denseOf[slot] = count;
      touched[next] = slot;
      if (excluded !== undefined && excluded(slot)) {
        mask[next] = EXCLUDED;
        continue;
      }
      mask[next] = bit;
      score[next] = scale * value;
      nameHits[next] = inName;
      continue;
    }
    const matched = mask[at] as number;
    if (matched === EXCLUDED) continue;
    // A tool matching the word and a synonym (or two synonyms) counts the first match.
    const has = (matched & bit) !== 0;
    if (has && once) continue;
    if (!has) {
      mask[at] = matched | bit;
      nameHits[at] = (nameHits[at] as number) + inName;
    }
    score[at] = (score[at] as number) + scale * value;
  }
  return count;
}

/**
 * Adds the posting list of term number `term` to the touched tools only, finding each in the
 * list by binary search (lists are in ascending slot order): cheaper than a scan when the list
 * is much longer.
 */
export function addToCandidates(
  store: PostingStore,
  term: number,
  scale: number,
  bit: number,
  once: boolean,
  scratch: Scratch,
  touchedCount: number,
): void {
  const { touched, score, mask, nameHits } = scratch;
  const { slots, values } = store;
  const start = store.starts[term] as number;
  const length = store.lengths[term] as number;
  for (let at = 0; at < touchedCount; at++) {
    const matched = mask[at] as number;
    if (matched === EXCLUDED) continue;
    const has = (matched & bit) !== 0;
    if (has && once) continue;
    const slot = touched[at] as number;
    let lo = start;
    let hi = start + length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((slots[mid * 2] as number) < slot) lo = mid + 1;
      else hi = mid;
    }
    if (slots[lo * 2] !== slot) continue;
    const inName = (slots[lo * 2 + 1] as number) >>> 31;
    const value = Math.abs(values[lo * 2 + 1] as number);
    if (!has) {
      mask[at] = matched | bit;
      nameHits[at] = (nameHits[at] as number) + inName;
    }
    score[at] = (score[at] as number) + scale * value;
  }
}

/** How the gathered scores become final ones. */
export interface Finish {
  /** Per slot, the packed figures of `Postings.slotMeta`. */
  readonly meta: Int32Array;
  /** Matched weight per bit set of query words, or undefined to add up `groupWeight`. */
  readonly maskWeight: Float64Array | undefined;
  readonly groupWeight: Float64Array;
  readonly totalWeight: number;
  readonly coverage: number;
  readonly nameMatch: number;
  readonly namespacePrior: number;
  readonly priorMatches: number;
  /**
   * Per namespace, {@link NAMESPACE_STATS} numbers: the sum of its tools' scores, its best
   * score, its second best, and the dense index plus one of the first of its tools (0: none).
   */
  readonly stats: Float64Array;
  /** The namespaces with scores in `stats`: the first `namespaceCount`. */
  readonly namespaces: Int32Array;
  namespaceCount: number;
  /** The dense index of the first touched tool with no namespace prior (-1: none). */
  loose: number;
}

/** How many numbers `Finish.stats` keeps per namespace. */
export const NAMESPACE_STATS = 4;

/**
 * Above this many touched tools per slot of the catalogue, `denseOf` is cleared whole (one
 * sequential fill) rather than slot by slot (one scattered write per touched tool).
 */
const FILL_SHARE = 1 / 16;

/**
 * Applies coverage and the whole-name bonus to every touched tool (marking removed and
 * filtered-out ones -1), gathers each namespace's scores for the prior, listing the namespaces
 * met in `finish.namespaces` and chaining each namespace's tools through `scratch.next`, and
 * leaves `denseOf` zeroed for the next search (no posting list is added after this).
 */
export function finishScores(scratch: Scratch, touchedCount: number, finish: Finish): void {
  const { denseOf, touched, score: scores, mask: masks, nameHits, next } = scratch;
  const { meta, maskWeight, groupWeight, totalWeight } = finish;
  const { coverage, nameMatch, namespacePrior, stats, namespaces } = finish;
  const keep = 1 - coverage;
  const perWeight = totalWeight > 0 ? coverage / totalWeight : 0;
  const clearEach = touchedCount <= denseOf.length * FILL_SHARE;
  let namespaceCount = 0;
  let loose = -1;
  for (let at = 0; at < touchedCount; at++) {
    const slot = touched[at] as number;
    if (clearEach) denseOf[slot] = 0;
    const slotMeta = meta[slot] as number;
    let mask = masks[at] as number;
    if (mask === EXCLUDED || !isLiveMeta(slotMeta)) {
      scores[at] = -1;
      continue;
    }
    let score = scores[at] as number;
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
    const names = nameTermsOf(slotMeta);
    if (nameMatch > 0 && names > 0) {
      score *= 1 + (nameMatch * Math.min(names, nameHits[at] as number)) / names;
    }
    scores[at] = score;
    const namespace = namespacePrior > 0 ? namespaceOf(slotMeta) : -1;
    if (namespace < 0) {
      next[at] = loose;
      loose = at;
      continue;
    }
    // The namespace's sum of scores, its two best scores, and its chain of tools.
    const at4 = namespace * NAMESPACE_STATS;
    const head = stats[at4 + 3] as number;
    if (head === 0) namespaces[namespaceCount++] = namespace;
    next[at] = head - 1;
    stats[at4 + 3] = at + 1;
    stats[at4] = (stats[at4] as number) + score;
    if (score > (stats[at4 + 1] as number)) {
      stats[at4 + 2] = stats[at4 + 1] as number;
      stats[at4 + 1] = score;
    } else if (score > (stats[at4 + 2] as number)) stats[at4 + 2] = score;
  }
  if (!clearEach) denseOf.fill(0);
  finish.namespaceCount = namespaceCount;
  finish.loose = loose;
}

/**
 * Adds each touched tool's namespace prior, offers it to `top`, and leaves the namespaces'
 * figures zeroed for the next search.
 *
 * Namespace by namespace: a tool's prior is at most `namespacePrior` times the lesser of its
 * namespace's summed score over `priorMatches` and the namespace's best score, so once `top` is
 * full, a namespace whose best score plus that bound still ranks below the worst kept hit is
 * passed over whole, its tools never read (most namespaces a query meets end there). The order
 * in which tools are offered does not change what `top` keeps.
 */
export function offerAll(scratch: Scratch, finish: Finish, top: TopHits): void {
  const { touched, score: scores, next } = scratch;
  const { namespacePrior, priorMatches, stats, namespaces } = finish;
  // The worst kept hit's score once `top` is full: a lower final score cannot enter.
  let floor = -Infinity;
  for (let i = 0; i < finish.namespaceCount; i++) {
    const at4 = (namespaces[i] as number) * NAMESPACE_STATS;
    const sum = stats[at4] as number;
    const best = stats[at4 + 1] as number;
    const second = stats[at4 + 2] as number;
    const head = stats[at4 + 3] as number;
    stats[at4] = 0;
    stats[at4 + 1] = 0;
    stats[at4 + 2] = 0;
    stats[at4 + 3] = 0;
    // No tool's prior exceeds this (its sum without it is at most `sum`, the best of the
    // others at most `best`; rounding keeps both inequalities), nor its score `best`.
    const bound = namespacePrior * Math.min(sum / priorMatches, best);
    if (best + bound < floor) continue;
    for (let at = head - 1; at >= 0; at = next[at] as number) {
      let score = scores[at] as number;
      if (score + bound < floor) continue;
      // The other tools' average over `priorMatches`, at most the best of them.
      const otherBest = score >= best ? second : best;
      const average = (sum - score) / priorMatches;
      score += namespacePrior * (average < otherBest ? average : otherBest);
      if (score < floor) continue;
      offerHit(top, touched[at] as number, score);
      if (top.size === top.limit && top.limit > 0) floor = top.scores[0] as number;
    }
  }
  for (let at = finish.loose; at >= 0; at = next[at] as number) {
    const score = scores[at] as number;
    if (score < floor) continue;
    offerHit(top, touched[at] as number, score);
    if (top.size === top.limit && top.limit > 0) floor = top.scores[0] as number;
  }
}
