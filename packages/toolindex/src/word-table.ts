/**
 * A hash table from words to values that is looked up with a span of a longer text, so indexing
 * a tool finds each of its words without slicing it out: a word met before costs no string,
 * no garbage, and one pass over its characters (hashing a freshly sliced string and looking it
 * up in a `Map`, twice, was a fifth of the registration's CPU time and most of its garbage).
 *
 * Words are compared lower-cased, ASCII only: a span holding any other character is never found
 * (the caller takes the slow path and does not add it), so the table never has to agree with
 * `toLowerCase` beyond A–Z.
 *
 * @module
 */

/** What {@link WordTable.find} returns for a word the table does not hold. */
export const MISSING = Symbol('missing');

const FIRST_CAPACITY = 1024;

/** Open addressing with linear probing, at most half full. */
export interface WordTable<T> {
  /** The value of `text.slice(start, end)` lower-cased, or {@link MISSING}. */
  find(text: string, start: number, end: number): T | typeof MISSING;
  /**
   * {@link WordTable.find} for a span whose {@link hashSpan} the caller has already computed
   * (a scanner folds each character into the hash as it reads it, so the span is read once).
   */
  findHashed(hash: number, text: string, start: number, end: number): T | typeof MISSING;
  /** Adds (or replaces) the value of a lower-case ASCII word. */
  add(word: string, value: T): void;
  /** Forgets every word. */
  clear(): void;
  readonly size: number;
}

/** The hash of a span holding a character outside ASCII: such a span is never in a table. */
export const NOT_ASCII = -1;

/** The hash of an empty span, before {@link foldChar} adds its characters (FNV-1a's offset). */
export const HASH_SEED = 0x811c9dc5 | 0;

/** Adds one ASCII character code to a span's hash, A–Z folded to a–z. */
export function foldChar(hash: number, code: number): number {
  return Math.imul(hash ^ (code >= 65 && code <= 90 ? code + 32 : code), 0x01000193);
}

/** A span's hash once all its characters are folded in: non-negative, so never {@link NOT_ASCII}. */
export function finishHash(hash: number): number {
  return hash >>> 1;
}

/** FNV-1a over the span's characters, A–Z folded to a–z; {@link NOT_ASCII} for anything else. */
export function hashSpan(text: string, start: number, end: number): number {
  let hash = HASH_SEED;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128) return NOT_ASCII;
    hash = foldChar(hash, code);
  }
  return finishHash(hash);
}

// A slot is four numbers side by side, so a probe reads one cache line: the word's hash, its
// length (0 marks an empty slot: a word has at least one character), where its characters start
// in the pool, and the number of its value.
const HASH = 0;
const LENGTH = 1;
const OFFSET = 2;
const NUMBER = 3;
const STRIDE = 4;

/**
 * Creates an empty {@link WordTable}. The words' characters live in one byte pool and each slot's
 * hash, length, pool offset and value number side by side in one typed array, so a probe compares
 * bytes in two flat arrays instead of following a pointer to a string somewhere in the heap.
 */
export function createWordTable<T>(): WordTable<T> {
  let slots = new Int32Array(FIRST_CAPACITY * STRIDE);
  let mask = FIRST_CAPACITY - 1;
  let pool = new Uint8Array(FIRST_CAPACITY * 8);
  let poolUsed = 0;
  let values: T[] = [];

  function sameWord(offset: number, text: string, start: number, length: number): boolean {
    for (let j = 0; j < length; j++) {
      let code = text.charCodeAt(start + j);
      if (code >= 65 && code <= 90) code += 32;
      if (pool[offset + j] !== code) return false;
    }
    return true;
  }

  /** The slot of the word `text[start, start + length)` with `hash`, or of the empty slot ending its probe. */
  function slotOf(hash: number, text: string, start: number, length: number): number {
    let at = hash & mask;
    for (;;) {
      const base = at * STRIDE;
      const slotLength = slots[base + LENGTH] as number;
      if (slotLength === 0) return at;
      if (
        slotLength === length &&
        slots[base + HASH] === hash &&
        sameWord(slots[base + OFFSET] as number, text, start, length)
      ) {
        return at;
      }
      at = (at + 1) & mask;
    }
  }

  function grow(): void {
    const old = slots;
    const capacity = (mask + 1) * 2;
    slots = new Int32Array(capacity * STRIDE);
    mask = capacity - 1;
    for (let from = 0; from < old.length; from += STRIDE) {
      if (old[from + LENGTH] === 0) continue;
      let at = (old[from + HASH] as number) & mask;
      while (slots[at * STRIDE + LENGTH] !== 0) at = (at + 1) & mask;
      for (let k = 0; k < STRIDE; k++) slots[at * STRIDE + k] = old[from + k] as number;
    }
  }

  function findHashed(hash: number, text: string, start: number, end: number): T | typeof MISSING {
    if (hash === NOT_ASCII) return MISSING;
    const base = slotOf(hash, text, start, end - start) * STRIDE;
    return slots[base + LENGTH] === 0 ? MISSING : (values[slots[base + NUMBER] as number] as T);
  }

  return {
    find(text, start, end) {
      return findHashed(hashSpan(text, start, end), text, start, end);
    },

    findHashed,

    add(word, value) {
      const hash = hashSpan(word, 0, word.length);
      if (hash === NOT_ASCII) return;
      const found = slotOf(hash, word, 0, word.length) * STRIDE;
      if (slots[found + LENGTH] !== 0) {
        values[slots[found + NUMBER] as number] = value;
        return;
      }
      if ((values.length + 1) * 2 > mask + 1) grow();
      const at = slotOf(hash, word, 0, word.length) * STRIDE;
      if (poolUsed + word.length > pool.length) {
        const bigger = new Uint8Array(Math.max(pool.length * 2, poolUsed + word.length));
        bigger.set(pool);
        pool = bigger;
      }
      for (let j = 0; j < word.length; j++) pool[poolUsed + j] = word.charCodeAt(j);
      slots[at + HASH] = hash;
      slots[at + LENGTH] = word.length;
      slots[at + OFFSET] = poolUsed;
      slots[at + NUMBER] = values.length;
      poolUsed += word.length;
      values.push(value);
    },

    clear() {
      slots = new Int32Array(FIRST_CAPACITY * STRIDE);
      mask = FIRST_CAPACITY - 1;
      pool = new Uint8Array(FIRST_CAPACITY * 8);
      poolUsed = 0;
      values = [];
    },

    get size() {
      return values.length;
    },
  };
}
