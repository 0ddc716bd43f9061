/**
 * The searchable text of one tool, as the index hands it to a {@link Searcher}. Never schemas:
 * search matches what a person (or a model) would read.
 */
export interface SearchDocument {
  /** Canonical tool ID. */
  readonly id: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly title: string | undefined;
  readonly description: string | undefined;
  /** Normalised tags (see toolmodel's `normalizeTags`). */
  readonly tags: readonly string[];
}

/** One search hit: a tool ID and its relevance (higher is better; scale is the searcher's own). */
export interface SearchHit {
  readonly id: string;
  readonly score: number;
}

/** What the index asks a {@link Searcher} for. */
export interface SearcherQuery {
  /** The query text: non-blank and at most {@link MAX_QUERY_LENGTH} characters. */
  readonly text: string;
  /** Return at most this many hits. */
  readonly limit: number;
  /** Only tools in this namespace. */
  readonly namespace?: string;
  /** Only tools carrying every one of these (normalised) tags. */
  readonly tags?: readonly string[];
  /** Aborts an asynchronous search. */
  readonly signal?: AbortSignal;
}

/**
 * A pluggable search engine. The index keeps it in step with registrations (`upsert`, `remove`
 * are called synchronously, after a change is committed, and must not throw) and asks it for
 * ranked hits. {@link createBm25Searcher} is the default; {@link createHybridSearcher} blends it
 * with embeddings. A searcher instance belongs to one index.
 */
export interface Searcher {
  /** Adds a document, or replaces the one with the same `id`. */
  upsert(doc: SearchDocument): void;
  /** Forgets a document; unknown IDs are ignored. */
  remove(id: string): void;
  /**
   * Hits for a query, best first, ties broken by ascending `id` (code-unit order), at most
   * `query.limit` of them, honouring the namespace and tag filters. Tools that do not match at
   * all are left out.
   *
   * @throws {ToolError} `cancelled` when `query.signal` aborts an asynchronous search.
   */
  search(query: SearcherQuery): readonly SearchHit[] | Promise<readonly SearchHit[]>;
  /**
   * Optional: how specific a (tokenised) term is to few tools, as its inverse document
   * frequency over the indexed tools; a term no tool holds has the highest value. Lets a
   * wrapping searcher weigh evidence by how much a word tells tools apart.
   */
  specificity?(term: string): number;
}

/** Queries are cut to this many characters before tokenising, so huge inputs stay cheap. */
export const MAX_QUERY_LENGTH = 1000;

/**
 * The text a query is searched and learned by: its first {@link MAX_QUERY_LENGTH} characters,
 * trimmed. A cut query is copied, so whoever keeps it does not keep the caller's whole input
 * alive (a V8 substring can be a view of the string it was cut from).
 */
export function boundedQuery(query: string): string {
  if (query.length <= MAX_QUERY_LENGTH) return query.trim();
  return Array.from(query.slice(0, MAX_QUERY_LENGTH).trim()).join('');
}

/** True when `doc` passes the namespace and tag filters of `query`. */
export function matchesFilter(
  doc: SearchDocument,
  query: Pick<SearcherQuery, 'namespace' | 'tags'>,
): boolean {
  if (query.namespace !== undefined && doc.namespace !== query.namespace) return false;
  const tags = query.tags;
  if (tags !== undefined) {
    for (const tag of tags) if (!doc.tags.includes(tag)) return false;
  }
  return true;
}

/** Orders hits best first, ties by ascending id. */
export function compareHits(a: SearchHit, b: SearchHit): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
