import type { SearchHit } from './searcher.js';

/**
 * The best `limit` of the (slot, score) pairs offered so far, ties broken by ascending id: a
 * bounded min-heap (worst kept hit on top) in typed arrays, so most offers lose to the worst kept
 * hit and are rejected with one comparison, without allocating or reading an id.
 *
 * A plain object made by {@link createTopHits} and worked on by module-level functions, not a
 * class. A class instance's shape is reached through a transition that V8 holds weakly: when a
 * search's heap is collected, so can its shape be, and every optimised function that was
 * specialised on it is thrown away; the next search (typically the first one on a new index)
 * then runs unoptimised. An object literal's shape is held by its allocation site and lives on.
 */
export interface TopHits {
  readonly limit: number;
  /** The documents by slot; ids are read only to break ties and in the result. */
  readonly docs: readonly ({ readonly id: string } | undefined)[];
  readonly scores: Float64Array;
  readonly slots: Int32Array;
  size: number;
}

/** Creates an empty {@link TopHits} keeping at most `limit` hits. */
export function createTopHits(
  limit: number,
  docs: readonly ({ readonly id: string } | undefined)[],
): TopHits {
  return {
    limit,
    docs,
    scores: new Float64Array(limit),
    slots: new Int32Array(limit),
    size: 0,
  };
}

function idOf(top: TopHits, slot: number): string {
  return (top.docs[slot] as { readonly id: string }).id;
}

/** Whether the entry at `i` ranks below the one at `j`. */
function worse(top: TopHits, i: number, j: number): boolean {
  const a = top.scores[i] as number;
  const b = top.scores[j] as number;
  return (
    a < b || (a === b && idOf(top, top.slots[i] as number) > idOf(top, top.slots[j] as number))
  );
}

function swap(top: TopHits, i: number, j: number): void {
  const { scores, slots } = top;
  const score = scores[i] as number;
  const slot = slots[i] as number;
  scores[i] = scores[j] as number;
  slots[i] = slots[j] as number;
  scores[j] = score;
  slots[j] = slot;
}

function siftDown(top: TopHits, start: number): void {
  let i = start;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let least = i;
    if (left < top.size && worse(top, left, least)) least = left;
    if (right < top.size && worse(top, right, least)) least = right;
    if (least === i) return;
    swap(top, i, least);
    i = least;
  }
}

/** Offers a slot with its score; kept if it ranks among the best `limit` so far. */
export function offerHit(top: TopHits, slot: number, score: number): void {
  if (top.limit === 0) return;
  const { scores, slots } = top;
  if (top.size === top.limit) {
    const worst = scores[0] as number;
    if (score < worst) return;
    if (score === worst && idOf(top, slot) > idOf(top, slots[0] as number)) return;
    scores[0] = score;
    slots[0] = slot;
    siftDown(top, 0);
    return;
  }
  scores[top.size] = score;
  slots[top.size] = slot;
  for (let i = top.size++; i > 0;) {
    const parent = (i - 1) >> 1;
    if (!worse(top, i, parent)) break;
    swap(top, i, parent);
    i = parent;
  }
}

/** The kept hits, best first; empties the heap. */
export function takeHits(top: TopHits): SearchHit[] {
  const { scores, slots } = top;
  const sorted = new Array<SearchHit>(top.size);
  while (top.size > 0) {
    sorted[top.size - 1] = { id: idOf(top, slots[0] as number), score: scores[0] as number };
    top.size--;
    if (top.size > 0) {
      scores[0] = scores[top.size] as number;
      slots[0] = slots[top.size] as number;
      siftDown(top, 0);
    }
  }
  return sorted;
}
