import type { SearchDocument } from './searcher.js';

/**
 * One term's posting list: the slots of the documents holding it and a score per slot, in
 * typed arrays (8 bytes a posting) that grow by doubling. Slots of removed documents stay until
 * the next compaction; `df` counts only live ones.
 */
export interface PostingList {
  slots: Int32Array;
  values: Float32Array;
  length: number;
  /** Live documents holding the term. */
  df: number;
  /** Indexing scratch: the weight gathered for the document being indexed… */
  pending: number;
  /** …and which indexing pass gathered it. */
  stamp: number;
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
  /** The posting list of `term`, created empty when there is none. */
  listFor(term: string): PostingList;
  /** Appends `slot` to a list from {@link Postings.listFor}. */
  append(list: PostingList, slot: number, value: number): void;
  /** The live document with this id. */
  documentOf(id: string): SearchDocument | undefined;
  /** Forgets a document; the first `count` of `lists` are the posting lists it was indexed in. */
  removeDocument(id: string, lists: readonly PostingList[], count: number): void;
  get(term: string): PostingList | undefined;
  /**
   * Per slot, what a search reads of the tool, packed in one number so it costs one memory
   * access: read with {@link isLiveMeta}, {@link nameTermsOf} and {@link namespaceOf}.
   * Replaced (not resized) as slots are added.
   */
  readonly slotMeta: Int32Array;
  /** The document in `slot`, or undefined once it is removed (until compaction drops the slot). */
  docAt(slot: number): SearchDocument | undefined;
  /** The documents by slot (`undefined` for a removed one); replaced on compaction. */
  readonly documents: readonly (SearchDocument | undefined)[];
  /** How many namespace numbers have been handed out. */
  readonly namespaceCount: number;
  /**
   * Rises with every compaction, which forgets the lists of terms no live document holds: a
   * caller keeping lists from {@link Postings.listFor} drops them when this changes.
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

/** Removed documents are swept from posting lists once they outnumber the live ones. */
const COMPACT_MIN_DEAD = 1024;
const FIRST_CAPACITY = 2;

/** Creates an empty {@link Postings}. */
export function createPostings(): Postings {
  let docs: (SearchDocument | undefined)[] = [];
  let meta = new Int32Array(1024);
  const slotOf = new Map<string, number>();
  const lists = new Map<string, PostingList>();
  let dead = 0;
  let compactions = 0;
  const namespaceIds = new Map<string, number>();

  function compact(): void {
    const renumber = new Int32Array(docs.length).fill(-1);
    const liveDocs: SearchDocument[] = [];
    for (let slot = 0; slot < docs.length; slot++) {
      const doc = docs[slot];
      if (doc === undefined) continue;
      renumber[slot] = liveDocs.length;
      slotOf.set(doc.id, liveDocs.length);
      liveDocs.push(doc);
    }
    for (const [term, list] of lists) {
      if (list.df === 0) {
        lists.delete(term);
        continue;
      }
      let write = 0;
      for (let read = 0; read < list.length; read++) {
        const next = renumber[list.slots[read] as number] as number;
        if (next < 0) continue;
        list.slots[write] = next;
        list.values[write] = list.values[read] as number;
        write++;
      }
      list.length = write;
    }
    for (let slot = 0; slot < renumber.length; slot++) {
      const next = renumber[slot] as number;
      if (next >= 0) meta[next] = meta[slot] as number;
    }
    docs = liveDocs;
    meta.fill(0, liveDocs.length);
    dead = 0;
    compactions++;
  }

  return {
    get size() {
      return slotOf.size;
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
      }
      // One more than the namespace's number; 0 for none.
      let namespace = 0;
      if (doc.namespace !== undefined) {
        namespace = namespaceIds.get(doc.namespace) ?? 0;
        if (namespace === 0 && namespaceIds.size < MAX_NAMESPACES) {
          namespace = namespaceIds.size + 1;
          namespaceIds.set(doc.namespace, namespace);
        }
      }
      meta[slot] = packMeta(namespace - 1, nameTermCount, true);
      slotOf.set(doc.id, slot);
      return slot;
    },

    listFor(term) {
      let list = lists.get(term);
      if (list === undefined) {
        list = {
          slots: new Int32Array(FIRST_CAPACITY),
          values: new Float32Array(FIRST_CAPACITY),
          length: 0,
          df: 0,
          pending: 0,
          stamp: 0,
        };
        lists.set(term, list);
      }
      return list;
    },

    append(list, slot, value) {
      if (list.length === list.slots.length) {
        const slots = new Int32Array(list.length * 2);
        slots.set(list.slots);
        const values = new Float32Array(list.length * 2);
        values.set(list.values);
        list.slots = slots;
        list.values = values;
      }
      list.slots[list.length] = slot;
      list.values[list.length] = value;
      list.length++;
      list.df++;
    },

    documentOf(id) {
      const slot = slotOf.get(id);
      return slot === undefined ? undefined : docs[slot];
    },

    removeDocument(id, indexedIn, count) {
      const slot = slotOf.get(id);
      if (slot === undefined) return;
      slotOf.delete(id);
      docs[slot] = undefined;
      meta[slot] = (meta[slot] as number) & ~LIVE;
      dead++;
      for (let i = 0; i < count; i++) (indexedIn[i] as PostingList).df--;
      if (dead >= COMPACT_MIN_DEAD && dead > slotOf.size) compact();
    },

    get(term) {
      return lists.get(term);
    },

    get documents() {
      return docs;
    },

    docAt(slot) {
      return docs[slot];
    },

    get slotMeta() {
      return meta;
    },

    get namespaceCount() {
      return namespaceIds.size;
    },

    get compactions() {
      return compactions;
    },
  };
}
