import type { SearchHit } from './searcher.js';

/**
 * Keeps the best `limit` of the (slot, score) pairs offered, ties broken by ascending id. A
 * bounded min-heap (worst kept hit on top) in typed arrays: most offers lose to the worst kept
 * hit and are rejected with one comparison, without allocating or reading an id.
 */
export interface TopHits {
  offer(slot: number, score: number): void;
  /** The kept hits, best first. */
  result(): SearchHit[];
}

/** Creates a {@link TopHits}; `idOf` names a slot's document (read only to break ties). */
export function createTopHits(limit: number, idOf: (slot: number) => string): TopHits {
  const scores = new Float64Array(limit);
  const slots = new Int32Array(limit);
  let size = 0;

  // Whether the entry at `i` ranks below the one at `j`.
  const worse = (i: number, j: number): boolean => {
    const a = scores[i] as number;
    const b = scores[j] as number;
    return a < b || (a === b && idOf(slots[i] as number) > idOf(slots[j] as number));
  };
  const swap = (i: number, j: number): void => {
    const score = scores[i] as number;
    const slot = slots[i] as number;
    scores[i] = scores[j] as number;
    slots[i] = slots[j] as number;
    scores[j] = score;
    slots[j] = slot;
  };
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < size && worse(left, least)) least = left;
      if (right < size && worse(right, least)) least = right;
      if (least === i) return;
      swap(i, least);
      i = least;
    }
  };

  return {
    offer(slot, score) {
      if (limit === 0) return;
      if (size === limit) {
        const worst = scores[0] as number;
        if (score < worst) return;
        if (score === worst && idOf(slot) > idOf(slots[0] as number)) return;
        scores[0] = score;
        slots[0] = slot;
        siftDown(0);
        return;
      }
      scores[size] = score;
      slots[size] = slot;
      for (let i = size++; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    },

    result() {
      const sorted = new Array<SearchHit>(size);
      while (size > 0) {
        sorted[size - 1] = { id: idOf(slots[0] as number), score: scores[0] as number };
        size--;
        if (size > 0) {
          scores[0] = scores[size] as number;
          slots[0] = slots[size] as number;
          siftDown(0);
        }
      }
      return sorted;
    },
  };
}
