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
  /**
   * The kept hits' ids, read once a tie needs them and moved with their hits: a heap of tied
   * scores compares the same few ids again and again, and reading one from its document costs
   * a few cache misses.
   */
  readonly ids: (string | undefined)[];
  /** Optional {@link idKeys} by slot (two numbers a slot), so most ties are settled without ids. */
  readonly keys: Float64Array | undefined;
  size: number;
}

/** An {@link idKeys} half for an id holding a character it cannot encode: compare the ids. */
export const NO_KEY = -1;
const KEY_CHARS = 7;

/**
 * Writes the key of `id`'s seven characters from `from` at `keys[at]`. It writes rather than
 * returns: a key passes 2^31, and a number that large returned from a call that is not inlined
 * is boxed into a heap number, garbage for every tool registered.
 */
function writeKey(id: string, from: number, keys: Float64Array, at: number): void {
  let key = 0;
  for (let i = from; i < from + KEY_CHARS; i++) {
    let code = 0;
    if (i < id.length) {
      code = id.charCodeAt(i);
      if (code === 0 || code >= 128) {
        keys[at] = NO_KEY;
        return;
      }
    }
    key = key * 128 + code;
  }
  keys[at] = key;
}

/**
 * Writes the two sort keys of `id` at `keys[at]` and `keys[at + 1]`: its first 14 characters,
 * seven to a number (7 bits each, 49 bits in all, exact in a double), shorter ids padded with 0.
 * Two ids whose keys differ are in the order of their keys, so ties in score are broken by one
 * read of a compact array instead of following two documents to their id strings. A half is
 * {@link NO_KEY} when its characters are not all ASCII (or hold NUL), and equal keys say
 * nothing: then the ids themselves are compared.
 */
export function idKeys(id: string, keys: Float64Array, at: number): void {
  writeKey(id, 0, keys, at);
  writeKey(id, KEY_CHARS, keys, at + 1);
}

/** Creates an empty {@link TopHits} keeping at most `limit` hits. */
export function createTopHits(
  limit: number,
  docs: readonly ({ readonly id: string } | undefined)[],
  keys?: Float64Array,
): TopHits {
  return {
    limit,
    docs,
    keys,
    scores: new Float64Array(limit),
    slots: new Int32Array(limit),
    ids: new Array<string | undefined>(limit).fill(undefined),
    size: 0,
  };
}

function idOf(top: TopHits, slot: number): string {
  return (top.docs[slot] as { readonly id: string }).id;
}

/** The id of the kept hit at `i`. */
function idAt(top: TopHits, i: number): string {
  let id = top.ids[i];
  if (id === undefined) {
    id = idOf(top, top.slots[i] as number);
    top.ids[i] = id;
  }
  return id;
}

/**
 * Whether the keys of slots `x` and `y` tell their ids' order: 1 when x's id comes after y's,
 * -1 when before, 0 when only the ids can tell.
 */
function keyOrder(keys: Float64Array | undefined, x: number, y: number): number {
  if (keys === undefined) return 0;
  const a = keys[x * 2] as number;
  const b = keys[y * 2] as number;
  if (a !== b) return a >= 0 && b >= 0 ? (a > b ? 1 : -1) : 0;
  if (a < 0) return 0;
  const c = keys[x * 2 + 1] as number;
  const d = keys[y * 2 + 1] as number;
  return c !== d && c >= 0 && d >= 0 ? (c > d ? 1 : -1) : 0;
}

/** Whether the id of the kept hit at `i` comes after that of the one at `j`. */
function idAfter(top: TopHits, i: number, j: number): boolean {
  const order = keyOrder(top.keys, top.slots[i] as number, top.slots[j] as number);
  return order === 0 ? idAt(top, i) > idAt(top, j) : order > 0;
}

/** Whether the entry at `i` ranks below the one at `j`. */
function worse(top: TopHits, i: number, j: number): boolean {
  const a = top.scores[i] as number;
  const b = top.scores[j] as number;
  return a < b || (a === b && idAfter(top, i, j));
}

function swap(top: TopHits, i: number, j: number): void {
  const { scores, slots, ids } = top;
  const score = scores[i] as number;
  const slot = slots[i] as number;
  const id = ids[i];
  scores[i] = scores[j] as number;
  slots[i] = slots[j] as number;
  ids[i] = ids[j];
  scores[j] = score;
  slots[j] = slot;
  ids[j] = id;
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
  const { scores, slots, ids } = top;
  if (top.size === top.limit) {
    const worst = scores[0] as number;
    if (score < worst) return;
    let id: string | undefined;
    if (score === worst) {
      const order = keyOrder(top.keys, slot, slots[0] as number);
      if (order > 0) return;
      if (order === 0) {
        id = idOf(top, slot);
        if (id > idAt(top, 0)) return;
      }
    }
    scores[0] = score;
    slots[0] = slot;
    ids[0] = id;
    siftDown(top, 0);
    return;
  }
  scores[top.size] = score;
  slots[top.size] = slot;
  ids[top.size] = undefined;
  for (let i = top.size++; i > 0;) {
    const parent = (i - 1) >> 1;
    if (!worse(top, i, parent)) break;
    swap(top, i, parent);
    i = parent;
  }
}

/** The kept hits, best first; empties the heap. */
export function takeHits(top: TopHits): SearchHit[] {
  const { scores, slots, ids } = top;
  const sorted = new Array<SearchHit>(top.size);
  while (top.size > 0) {
    sorted[top.size - 1] = { id: idAt(top, 0), score: scores[0] as number };
    top.size--;
    if (top.size > 0) {
      scores[0] = scores[top.size] as number;
      slots[0] = slots[top.size] as number;
      ids[0] = ids[top.size];
      siftDown(top, 0);
    }
  }
  return sorted;
}
