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
  /** Adds (or replaces) the value of a lower-case ASCII word. */
  add(word: string, value: T): void;
  /** Forgets every word. */
  clear(): void;
  readonly size: number;
}

const NOT_ASCII = -1;

/** FNV-1a over the span's characters, A–Z folded to a–z; {@link NOT_ASCII} for anything else. */
function hashSpan(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    let code = text.charCodeAt(i);
    if (code >= 128) return NOT_ASCII;
    if (code >= 65 && code <= 90) code += 32;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  // Non-negative, so NOT_ASCII is never a real hash.
  return hash >>> 1;
}

/**
 * Creates an empty {@link WordTable}. The words' characters live in one byte pool and each slot's
 * hash, length, pool offset and value number in typed arrays, so a probe compares bytes in a
 * few flat arrays instead of following a pointer to a string somewhere in the heap.
 */
export function createWordTable<T>(): WordTable<T> {
  let hashes = new Int32Array(FIRST_CAPACITY);
  // 0 marks an empty slot: a word has at least one character.
  let lengths = new Int32Array(FIRST_CAPACITY);
  let offsets = new Int32Array(FIRST_CAPACITY);
  let numbers = new Int32Array(FIRST_CAPACITY);
  let pool = new Uint8Array(FIRST_CAPACITY * 8);
  let poolUsed = 0;
  let values: T[] = [];

  function sameWord(at: number, text: string, start: number, length: number): boolean {
    const offset = offsets[at] as number;
    for (let j = 0; j < length; j++) {
      let code = text.charCodeAt(start + j);
      if (code >= 65 && code <= 90) code += 32;
      if (pool[offset + j] !== code) return false;
    }
    return true;
  }

  /** The slot of the word `text[start, start + length)` with `hash`, or of the empty slot ending its probe. */
  function slotOf(hash: number, text: string, start: number, length: number): number {
    const mask = hashes.length - 1;
    let at = hash & mask;
    for (;;) {
      const slotLength = lengths[at] as number;
      if (slotLength === 0) return at;
      if (slotLength === length && hashes[at] === hash && sameWord(at, text, start, length)) {
        return at;
      }
      at = (at + 1) & mask;
    }
  }

  function grow(): void {
    const oldHashes = hashes;
    const oldLengths = lengths;
    const oldOffsets = offsets;
    const oldNumbers = numbers;
    const capacity = oldHashes.length * 2;
    hashes = new Int32Array(capacity);
    lengths = new Int32Array(capacity);
    offsets = new Int32Array(capacity);
    numbers = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let from = 0; from < oldHashes.length; from++) {
      const length = oldLengths[from] as number;
      if (length === 0) continue;
      const hash = oldHashes[from] as number;
      let at = hash & mask;
      while (lengths[at] !== 0) at = (at + 1) & mask;
      hashes[at] = hash;
      lengths[at] = length;
      offsets[at] = oldOffsets[from] as number;
      numbers[at] = oldNumbers[from] as number;
    }
  }

  return {
    find(text, start, end) {
      const hash = hashSpan(text, start, end);
      if (hash === NOT_ASCII) return MISSING;
      const at = slotOf(hash, text, start, end - start);
      return lengths[at] === 0 ? MISSING : (values[numbers[at] as number] as T);
    },

    add(word, value) {
      const hash = hashSpan(word, 0, word.length);
      if (hash === NOT_ASCII) return;
      const found = slotOf(hash, word, 0, word.length);
      if (lengths[found] !== 0) {
        values[numbers[found] as number] = value;
        return;
      }
      if ((values.length + 1) * 2 > hashes.length) grow();
      const at = slotOf(hash, word, 0, word.length);
      if (poolUsed + word.length > pool.length) {
        const bigger = new Uint8Array(Math.max(pool.length * 2, poolUsed + word.length));
        bigger.set(pool);
        pool = bigger;
      }
      for (let j = 0; j < word.length; j++) pool[poolUsed + j] = word.charCodeAt(j);
      hashes[at] = hash;
      lengths[at] = word.length;
      offsets[at] = poolUsed;
      numbers[at] = values.length;
      poolUsed += word.length;
      values.push(value);
    },

    clear() {
      hashes = new Int32Array(FIRST_CAPACITY);
      lengths = new Int32Array(FIRST_CAPACITY);
      offsets = new Int32Array(FIRST_CAPACITY);
      numbers = new Int32Array(FIRST_CAPACITY);
      pool = new Uint8Array(FIRST_CAPACITY * 8);
      poolUsed = 0;
      values = [];
    },

    get size() {
      return values.length;
    },
  };
}
