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
 * {@link EXCLUDED}), how many query words it found in its name and its namespace. So finishing
 * and ranking read them in order instead of jumping about a catalogue-sized array; only
 * `denseOf` is per slot, and a search leaves it zero again. The dense arrays need no clearing:
 * a tool's first touch writes all of its figures.
 */
export interface Scratch {
  denseOf: Int32Array;
  touched: Int32Array;
  score: Float64Array;
  mask: Int32Array;
  nameHits: Uint8Array;
  namespace: Int32Array;
}

/** Scratch for `slots` slots, its pages touched now so no search takes their faults. */
export function createScratch(slots: number): Scratch {
  return {
    denseOf: new Int32Array(slots).fill(0),
    touched: new Int32Array(slots).fill(0),
    score: new Float64Array(slots).fill(0),
    mask: new Int32Array(slots).fill(0),
    nameHits: new Uint8Array(slots).fill(0),
    namespace: new Int32Array(slots).fill(0),
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
    let value = values[p + 1] as number;
    // A term of the name is stored negated.
    const inName = value < 0;
    if (inName) value = -value;
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
      nameHits[next] = inName ? 1 : 0;
      continue;
    }
    const matched = mask[at] as number;
    if (matched === EXCLUDED) continue;
    // A tool matching the word and a synonym (or two synonyms) counts the first match.
    const has = (matched & bit) !== 0;
    if (has && once) continue;
    if (!has) {
      mask[at] = matched | bit;
      if (inName) nameHits[at] = (nameHits[at] as number) + 1;
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
    let value = values[lo * 2 + 1] as number;
    const inName = value < 0;
    if (inName) value = -value;
    if (!has) {
      mask[at] = matched | bit;
      if (inName) nameHits[at] = (nameHits[at] as number) + 1;
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
  /** Per namespace: the sum of its tools' scores, its best score and its second best. */
  readonly stats: Float64Array;
  /** The namespaces with scores in `stats`: the first `namespaceCount`. */
  readonly namespaces: Int32Array;
  namespaceCount: number;
  /** The best score {@link finishScores} gave (before any prior), which bounds every prior. */
  best?: number;
}

/**
 * Above this many touched tools per slot of the catalogue, `denseOf` is cleared whole (one
 * sequential fill) rather than slot by slot (one scattered write per touched tool).
 */
const FILL_SHARE = 1 / 16;

/**
 * Applies coverage and the whole-name bonus to every touched tool (marking removed and
 * filtered-out ones -1), and gathers each namespace's scores for the prior, listing the
 * namespaces met in `finish.namespaces`.
 */
export function finishScores(scratch: Scratch, touchedCount: number, finish: Finish): void {
  const { touched, score: scores, mask: masks, nameHits, namespace: namespaceAt } = scratch;
  const { meta, maskWeight, groupWeight, totalWeight } = finish;
  const { coverage, nameMatch, namespacePrior, stats, namespaces } = finish;
  const keep = 1 - coverage;
  const perWeight = totalWeight > 0 ? coverage / totalWeight : 0;
  let namespaceCount = 0;
  let best = 0;
  for (let at = 0; at < touchedCount; at++) {
    const slotMeta = meta[touched[at] as number] as number;
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
    if (score > best) best = score;
    const namespace = namespacePrior > 0 ? namespaceOf(slotMeta) : -1;
    namespaceAt[at] = namespace;
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
  finish.namespaceCount = namespaceCount;
  finish.best = best;
}

/**
 * Adds each touched tool's namespace prior, offers it to `top`, and leaves `denseOf` and the
 * namespaces' scores zeroed for the next search.
 *
 * A prior is at most `namespacePrior` times the best score of all (the best of the other tools
 * of a namespace is never more), so once `top` is full, a tool whose score plus that much still
 * ranks below the worst kept hit is passed over without reading its namespace's figures or
 * calling {@link offerHit}: most touched tools match only a common word and end there.
 */
export function offerAll(
  scratch: Scratch,
  touchedCount: number,
  finish: Finish,
  top: TopHits,
): void {
  const { denseOf, touched, score: scores, namespace: namespaceAt } = scratch;
  const { namespacePrior, priorMatches, stats, namespaces } = finish;
  if (touchedCount > denseOf.length * FILL_SHARE) denseOf.fill(0);
  else for (let at = 0; at < touchedCount; at++) denseOf[touched[at] as number] = 0;
  const maxPrior = finish.best === undefined ? Infinity : namespacePrior * finish.best;
  // The worst kept hit's score once `top` is full: a lower final score cannot enter.
  let floor = -Infinity;
  for (let at = 0; at < touchedCount; at++) {
    let score = scores[at] as number;
    if (score < 0 || score + maxPrior < floor) continue;
    const namespace = namespaceAt[at] as number;
    if (namespace >= 0) {
      // The other tools' average over `priorMatches`, at most the best of them.
      const at3 = namespace * 3;
      const best = stats[at3 + 1] as number;
      const otherBest = score >= best ? (stats[at3 + 2] as number) : best;
      const average = ((stats[at3] as number) - score) / priorMatches;
      score += namespacePrior * (average < otherBest ? average : otherBest);
    }
    if (score < floor) continue;
    offerHit(top, touched[at] as number, score);
    if (top.size === top.limit && top.limit > 0) floor = top.scores[0] as number;
  }
  for (let i = 0; i < finish.namespaceCount; i++) {
    const at3 = (namespaces[i] as number) * 3;
    stats[at3] = 0;
    stats[at3 + 1] = 0;
    stats[at3 + 2] = 0;
  }
}
