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
  /** Forgets a document; `lists` are the posting lists it was indexed in. */
  removeDocument(id: string, lists: readonly PostingList[]): void;
  get(term: string): PostingList | undefined;
  isLive(slot: number): boolean;
  /** Per slot, 1 while its document is live; replaced (not resized) as slots are added. */
  readonly liveFlags: Uint8Array;
  /** Per slot, the number {@link Postings.namespaceAt} returns; replaced as slots are added. */
  readonly namespaceNumbers: Int32Array;
  /** Per slot, how many distinct terms the name has (at most 255); replaced as slots are added. */
  readonly nameTermCounts: Uint8Array;
  /** The document in `slot`, or undefined once it is removed (until compaction drops the slot). */
  docAt(slot: number): SearchDocument | undefined;
  /** A small number standing for the namespace of the document in `slot` (-1 for none). */
  namespaceAt(slot: number): number;
  /** The documents by slot (`undefined` for a removed one); replaced on compaction. */
  readonly documents: readonly (SearchDocument | undefined)[];
  /** How many namespace numbers have been handed out. */
  readonly namespaceCount: number;
}

/** Removed documents are swept from posting lists once they outnumber the live ones. */
const COMPACT_MIN_DEAD = 1024;
const FIRST_CAPACITY = 2;

/** Creates an empty {@link Postings}. */
export function createPostings(): Postings {
  let docs: (SearchDocument | undefined)[] = [];
  let live = new Uint8Array(1024);
  const slotOf = new Map<string, number>();
  const lists = new Map<string, PostingList>();
  let dead = 0;
  let namespaceOf = new Int32Array(1024);
  let nameTerms = new Uint8Array(1024);
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
      if (next >= 0) {
        namespaceOf[next] = namespaceOf[slot] as number;
        nameTerms[next] = nameTerms[slot] as number;
      }
    }
    docs = liveDocs;
    live.fill(0);
    live.fill(1, 0, liveDocs.length);
    dead = 0;
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
      if (slot >= live.length) {
        const grown = new Uint8Array(live.length * 2);
        grown.set(live);
        live = grown;
        const namespaces = new Int32Array(namespaceOf.length * 2);
        namespaces.set(namespaceOf);
        namespaceOf = namespaces;
        const names = new Uint8Array(nameTerms.length * 2);
        names.set(nameTerms);
        nameTerms = names;
      }
      nameTerms[slot] = Math.min(255, nameTermCount);
      live[slot] = 1;
      let namespace = -1;
      if (doc.namespace !== undefined) {
        namespace = namespaceIds.get(doc.namespace) ?? namespaceIds.size;
        if (namespace === namespaceIds.size) namespaceIds.set(doc.namespace, namespace);
      }
      namespaceOf[slot] = namespace;
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

    removeDocument(id, indexedIn) {
      const slot = slotOf.get(id);
      if (slot === undefined) return;
      slotOf.delete(id);
      docs[slot] = undefined;
      live[slot] = 0;
      dead++;
      for (const list of indexedIn) list.df--;
      if (dead >= COMPACT_MIN_DEAD && dead > slotOf.size) compact();
    },

    get(term) {
      return lists.get(term);
    },

    isLive(slot) {
      return live[slot] === 1;
    },

    get documents() {
      return docs;
    },

    docAt(slot) {
      return docs[slot];
    },

    get liveFlags() {
      return live;
    },

    get namespaceNumbers() {
      return namespaceOf;
    },

    get nameTermCounts() {
      return nameTerms;
    },

    namespaceAt(slot) {
      return namespaceOf[slot] as number;
    },

    get namespaceCount() {
      return namespaceIds.size;
    },
  };
}
