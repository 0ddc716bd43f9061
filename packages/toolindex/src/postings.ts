import type { SearchDocument } from './searcher.js';
import { idKeys } from './top-hits.js';

/**
 * Every posting list of one index, by term number, in flat typed arrays: a list is a block of
 * one shared pool, so adding a posting writes one cache line of the pool and three small
 * per-term arrays instead of following a list object to two arrays of its own. Replaced (not
 * resized) as terms and postings are added: read the arrays from this object at each use.
 */
export interface PostingStore {
  /** Per term: where its block starts in the pool, counted in postings. */
  readonly starts: Int32Array;
  /** Per term: how many postings its block holds, removed documents' included until compaction. */
  readonly lengths: Int32Array;
  /** Per term: live documents holding it. */
  readonly dfs: Int32Array;
  /**
   * The pool, two views of one buffer with the postings interleaved: posting `p`'s slot is
   * `slots[2 * p]`, its score `values[2 * p + 1]`, in one cache line. A block is in ascending
   * slot order. A score is negated for a term of the name, so `slots[2 * p + 1] >>> 31` (its
   * sign bit) tells a name posting without a comparison.
   */
  readonly slots: Int32Array;
  readonly values: Float32Array;
}

/** The inverted index of {@link createBm25Searcher}: documents by slot, posting lists by term. */
export interface Postings {
  /** Live documents. */
  readonly size: number;
  /** Slots handed out so far (live or not); scratch arrays sized by it cover every slot. */
  readonly slotCount: number;
  /**
   * Gives a document a slot, noting how many distinct terms its name has; its terms are added
   * with {@link Postings.append}.
   */
  addDocument(doc: SearchDocument, nameTerms: number): number;
  /** The number of `term`, its posting list created empty when there is none. */
  listFor(term: string): number;
  /** Appends `slot` with its score to the list of term number `term`. */
  append(term: number, slot: number, value: number): void;
  /**
   * Appends `slot` to the lists of the first `count` term numbers of `terms`, with `values[i]`
   * its score in the list of `terms[i]`. One call a document: a score handed to a call that is
   * not inlined is boxed into a heap number, and a tool has twenty-odd of them.
   */
  appendAll(slot: number, terms: Int32Array, values: Float64Array, count: number): void;
  /** The live document with this id. */
  documentOf(id: string): SearchDocument | undefined;
  /** Forgets a document; the first `count` of `terms` are the term numbers it was indexed under. */
  removeDocument(id: string, terms: Int32Array, count: number): void;
  /** The number of `term`, or -1 when no list has it. */
  termId(term: string): number;
  /** Live documents holding `term`. */
  df(term: string): number;
  /** The posting lists. */
  readonly store: PostingStore;
  /**
   * Per slot, what a search reads of the tool, packed in one number so it costs one memory
   * access: read with {@link isLiveMeta}, {@link nameTermsOf} and {@link namespaceOf}.
   * Replaced (not resized) as slots are added.
   */
  readonly slotMeta: Int32Array;
  /**
   * Per slot, the two sort keys of its document's id (see `idKeys` in top-hits.ts), so ties in
   * score are mostly broken without reading ids. Replaced (not resized) as slots are added.
   */
  readonly idKeys: Float64Array;
  /** The document in `slot`, or undefined once it is removed (until compaction drops the slot). */
  docAt(slot: number): SearchDocument | undefined;
  /** The documents by slot (`undefined` for a removed one); replaced on compaction. */
  readonly documents: readonly (SearchDocument | undefined)[];
  /** How many namespace numbers have been handed out. */
  readonly namespaceCount: number;
  /**
   * Rises with every compaction, which forgets the terms no live document holds (and may give
   * their numbers to new terms): a caller keeping term numbers drops them when this changes.
   */
  readonly compactions: number;
}

// A slot's meta: bit 0 live, bits 1–8 the name's distinct terms (at most 255), bits 9–30 one
// more than the namespace number (0 for none).
const LIVE = 1;
const NAME_TERMS_SHIFT = 1;
const NAMESPACE_SHIFT = 9;
/** Namespaces met after this many get no number (so no namespace prior), to fit the meta. */
const MAX_NAMESPACES = (1 << 22) - 1;

/** A slot's meta: its namespace number (-1 for none), its name's distinct terms, whether live. */
export function packMeta(namespace: number, nameTerms: number, live: boolean): number {
  return (
    ((namespace + 1) << NAMESPACE_SHIFT) |
    (Math.min(255, nameTerms) << NAME_TERMS_SHIFT) |
    (live ? LIVE : 0)
  );
}

/** Whether a slot's meta is a live document's. */
export function isLiveMeta(meta: number): boolean {
  return (meta & LIVE) !== 0;
}

/** How many distinct terms the name of a slot's document has (at most 255). */
export function nameTermsOf(meta: number): number {
  return (meta >>> NAME_TERMS_SHIFT) & 255;
}

/** A small number standing for the namespace of a slot's document (-1 for none). */
export function namespaceOf(meta: number): number {
  return (meta >>> NAMESPACE_SHIFT) - 1;
}

/**
 * Where {@link createPostings} keeps each live document's slot. The default is a map by id; an
 * index that owns its searcher keeps the slot on its own record instead (one ID map for the
 * index and its searcher, see `linkedDirectory` in tool-index.ts), which spares a registration
 * a hash insert into a second map as large as the catalogue.
 */
export interface SlotDirectory {
  /** The slot of the live document with this id. */
  get(id: string): number | undefined;
  /** Notes the slot a document was just given. */
  add(doc: SearchDocument, slot: number): void;
  /** Notes that compaction moved the live document with this id to `slot`. */
  move(id: string, slot: number): void;
  /** Forgets the slot of a removed document. */
  delete(id: string): void;
}

/** A {@link SlotDirectory} of its own: a map by id. */
export function createSlotMap(): SlotDirectory {
  const slots = new Map<string, number>();
  return {
    get: (id) => slots.get(id),
    add(doc, slot) {
      slots.set(doc.id, slot);
    },
    move(id, slot) {
      slots.set(id, slot);
    },
    delete(id) {
      slots.delete(id);
    },
  };
}

/** Removed documents are swept from posting lists once they outnumber the live ones. */
const COMPACT_MIN_DEAD = 1024;
/** A new list's block holds 2 postings (size class 1); a full block moves to one twice the size. */
const FIRST_CLASS = 1;
const NO_BLOCK = -1;

/** Creates an empty {@link Postings}, keeping slots in `slotOf` (a map of its own by default). */
export function createPostings(slotOf: SlotDirectory = createSlotMap()): Postings {
  let docs: (SearchDocument | undefined)[] = [];
  let meta = new Int32Array(1024);
  let keys = new Float64Array(meta.length * 2);
  let live = 0;
  const termIds = new Map<string, number>();
  // By term number: the term (undefined for a number free for reuse) and its block's size class.
  const terms: (string | undefined)[] = [];
  const freeTerms: number[] = [];
  let classes = new Uint8Array(256);
  const store = {
    starts: new Int32Array(256),
    lengths: new Int32Array(256),
    dfs: new Int32Array(256),
    slots: new Int32Array(0),
    values: new Float32Array(0),
  };
  // Pool postings handed out to blocks (live or free), and per size class the first free block
  // (each free block holds the start of the next in its first slot).
  let used = 0;
  const freeBlocks = new Int32Array(32).fill(NO_BLOCK);
  let dead = 0;
  let compactions = 0;
  const namespaceIds = new Map<string, number>();
  // The namespace of the document added last and its number (one more than it; 0 for none).
  let lastNamespace: string | undefined;
  let lastNamespaceNumber = 0;

  /** A block of `1 << sizeClass` postings: a freed one of that size, or new room at the end. */
  function allocate(sizeClass: number): number {
    const free = freeBlocks[sizeClass] as number;
    if (free !== NO_BLOCK) {
      freeBlocks[sizeClass] = store.slots[free * 2] as number;
      return free;
    }
    const size = 1 << sizeClass;
    if ((used + size) * 2 > store.slots.length) growPool(used + size);
    const start = used;
    used += size;
    return start;
  }

  function release(start: number, sizeClass: number): void {
    store.slots[start * 2] = freeBlocks[sizeClass] as number;
    freeBlocks[sizeClass] = start;
  }

  /** Grows the pool by half (copying it once) so it holds at least `postings`. */
  function growPool(postings: number): void {
    const capacity = Math.max(postings, 1024, Math.ceil((store.slots.length / 2) * 1.5));
    const buffer = new ArrayBuffer(capacity * 8);
    const slots = new Int32Array(buffer);
    slots.set(store.slots.subarray(0, used * 2));
    store.slots = slots;
    store.values = new Float32Array(buffer);
  }

  function growTerms(): void {
    const size = store.starts.length * 2;
    const grow = <T extends Int32Array | Uint8Array>(old: T, bigger: T): T => {
      bigger.set(old);
      return bigger;
    };
    store.starts = grow(store.starts, new Int32Array(size));
    store.lengths = grow(store.lengths, new Int32Array(size));
    store.dfs = grow(store.dfs, new Int32Array(size));
    classes = grow(classes, new Uint8Array(size));
  }

  function appendOne(term: number, slot: number, value: number): void {
    const length = store.lengths[term] as number;
    let start = store.starts[term] as number;
    const sizeClass = classes[term] as number;
    if (length === 1 << sizeClass) {
      // A full block moves to one twice its size (which may grow the pool: read it after).
      const moved = allocate(sizeClass + 1);
      store.slots.copyWithin(moved * 2, start * 2, (start + length) * 2);
      release(start, sizeClass);
      start = moved;
      store.starts[term] = moved;
      classes[term] = sizeClass + 1;
    }
    const at = (start + length) * 2;
    store.slots[at] = slot;
    store.values[at + 1] = value;
    store.lengths[term] = length + 1;
    store.dfs[term] = (store.dfs[term] as number) + 1;
  }

  function compact(): void {
    const renumber = new Int32Array(docs.length).fill(-1);
    const liveDocs: SearchDocument[] = [];
    for (let slot = 0; slot < docs.length; slot++) {
      const doc = docs[slot];
      if (doc === undefined) continue;
      renumber[slot] = liveDocs.length;
      slotOf.move(doc.id, liveDocs.length);
      liveDocs.push(doc);
    }
    const { starts, lengths, dfs, slots, values } = store;
    for (let term = 0; term < terms.length; term++) {
      const name = terms[term];
      if (name === undefined) continue;
      const start = starts[term] as number;
      if (dfs[term] === 0) {
        termIds.delete(name);
        terms[term] = undefined;
        freeTerms.push(term);
        release(start, classes[term] as number);
        lengths[term] = 0;
        continue;
      }
      let write = start * 2;
      const end = (start + (lengths[term] as number)) * 2;
      for (let read = start * 2; read < end; read += 2) {
        const next = renumber[slots[read] as number] as number;
        if (next < 0) continue;
        slots[write] = next;
        values[write + 1] = values[read + 1] as number;
        write += 2;
      }
      lengths[term] = write / 2 - start;
    }
    for (let slot = 0; slot < renumber.length; slot++) {
      const next = renumber[slot] as number;
      if (next < 0) continue;
      meta[next] = meta[slot] as number;
      keys[next * 2] = keys[slot * 2] as number;
      keys[next * 2 + 1] = keys[slot * 2 + 1] as number;
    }
    docs = liveDocs;
    meta.fill(0, liveDocs.length);
    dead = 0;
    compactions++;
  }

  return {
    get size() {
      return live;
    },
    get slotCount() {
      return docs.length;
    },

    addDocument(doc, nameTermCount) {
      const slot = docs.length;
      docs.push(doc);
      if (slot >= meta.length) {
        const grown = new Int32Array(meta.length * 2);
        grown.set(meta);
        meta = grown;
        const grownKeys = new Float64Array(meta.length * 2);
        grownKeys.set(keys);
        keys = grownKeys;
      }
      // One more than the namespace's number; 0 for none.
      let namespace = 0;
      if (doc.namespace !== undefined) {
        // Numbers are never taken back, so the last one found stays right for its namespace.
        if (doc.namespace === lastNamespace) namespace = lastNamespaceNumber;
        else {
          namespace = namespaceIds.get(doc.namespace) ?? 0;
          if (namespace === 0 && namespaceIds.size < MAX_NAMESPACES) {
            namespace = namespaceIds.size + 1;
            namespaceIds.set(doc.namespace, namespace);
          }
          lastNamespace = doc.namespace;
          lastNamespaceNumber = namespace;
        }
      }
      meta[slot] = packMeta(namespace - 1, nameTermCount, true);
      idKeys(doc.id, keys, slot * 2);
      slotOf.add(doc, slot);
      live++;
      return slot;
    },

    listFor(name) {
      let term = termIds.get(name);
      if (term === undefined) {
        term = freeTerms.pop();
        if (term === undefined) {
          term = terms.length;
          terms.push(name);
          if (term >= store.starts.length) growTerms();
        } else {
          terms[term] = name;
        }
        termIds.set(name, term);
        store.starts[term] = allocate(FIRST_CLASS);
        store.lengths[term] = 0;
        store.dfs[term] = 0;
        classes[term] = FIRST_CLASS;
      }
      return term;
    },

    append: appendOne,

    appendAll(slot, terms, values, count) {
      for (let i = 0; i < count; i++) appendOne(terms[i] as number, slot, values[i] as number);
    },

    documentOf(id) {
      const slot = slotOf.get(id);
      return slot === undefined ? undefined : docs[slot];
    },

    removeDocument(id, indexedIn, count) {
      const slot = slotOf.get(id);
      if (slot === undefined) return;
      slotOf.delete(id);
      live--;
      docs[slot] = undefined;
      meta[slot] = (meta[slot] as number) & ~LIVE;
      dead++;
      const dfs = store.dfs;
      for (let i = 0; i < count; i++) {
        const term = indexedIn[i] as number;
        dfs[term] = (dfs[term] as number) - 1;
      }
      if (dead >= COMPACT_MIN_DEAD && dead > live) compact();
    },

    termId(name) {
      return termIds.get(name) ?? -1;
    },

    df(name) {
      const term = termIds.get(name);
      return term === undefined ? 0 : (store.dfs[term] as number);
    },

    store,

    get documents() {
      return docs;
    },

    docAt(slot) {
      return docs[slot];
    },

    get slotMeta() {
      return meta;
    },

    get idKeys() {
      return keys;
    },

    get namespaceCount() {
      return namespaceIds.size;
    },

    get compactions() {
      return compactions;
    },
  };
}
