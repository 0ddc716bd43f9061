import type { SearchHit } from './searcher.js';

/**
 * Keeps the best `limit` of the (slot, score) pairs offered, ties broken by ascending id. A
 * bounded min-heap (worst kept hit on top) in typed arrays: most offers lose to the worst kept
 * hit and are rejected with one comparison, without allocating or reading an id. A class, so
 * every search shares one compiled `offer` instead of a fresh closure per search.
 */
export class TopHits {
  readonly #limit: number;
  readonly #docs: readonly ({ readonly id: string } | undefined)[];
  readonly #scores: Float64Array;
  readonly #slots: Int32Array;
  #size = 0;

  /**
   * `docs` holds the documents by slot (ids are read only to break ties and in the result). An
   * array rather than a lookup function: optimised code that inlined one index's function
   * would be thrown away when that index is collected, and the next index's first searches
   * would run unoptimised.
   */
  constructor(limit: number, docs: readonly ({ readonly id: string } | undefined)[]) {
    this.#limit = limit;
    this.#docs = docs;
    this.#scores = new Float64Array(limit);
    this.#slots = new Int32Array(limit);
  }

  #idOf(slot: number): string {
    return (this.#docs[slot] as { readonly id: string }).id;
  }

  /** Whether the entry at `i` ranks below the one at `j`. */
  #worse(i: number, j: number): boolean {
    const a = this.#scores[i] as number;
    const b = this.#scores[j] as number;
    return (
      a < b ||
      (a === b && this.#idOf(this.#slots[i] as number) > this.#idOf(this.#slots[j] as number))
    );
  }

  #swap(i: number, j: number): void {
    const scores = this.#scores;
    const slots = this.#slots;
    const score = scores[i] as number;
    const slot = slots[i] as number;
    scores[i] = scores[j] as number;
    slots[i] = slots[j] as number;
    scores[j] = score;
    slots[j] = slot;
  }

  #siftDown(start: number): void {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < this.#size && this.#worse(left, least)) least = left;
      if (right < this.#size && this.#worse(right, least)) least = right;
      if (least === i) return;
      this.#swap(i, least);
      i = least;
    }
  }

  /** Offers a slot with its score; kept if it ranks among the best `limit` so far. */
  offer(slot: number, score: number): void {
    if (this.#limit === 0) return;
    const scores = this.#scores;
    const slots = this.#slots;
    if (this.#size === this.#limit) {
      const worst = scores[0] as number;
      if (score < worst) return;
      if (score === worst && this.#idOf(slot) > this.#idOf(slots[0] as number)) return;
      scores[0] = score;
      slots[0] = slot;
      this.#siftDown(0);
      return;
    }
    scores[this.#size] = score;
    slots[this.#size] = slot;
    for (let i = this.#size++; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** The kept hits, best first; empties the heap. */
  result(): SearchHit[] {
    const scores = this.#scores;
    const slots = this.#slots;
    const sorted = new Array<SearchHit>(this.#size);
    while (this.#size > 0) {
      sorted[this.#size - 1] = {
        id: this.#idOf(slots[0] as number),
        score: scores[0] as number,
      };
      this.#size--;
      if (this.#size > 0) {
        scores[0] = scores[this.#size] as number;
        slots[0] = slots[this.#size] as number;
        this.#siftDown(0);
      }
    }
    return sorted;
  }
}
