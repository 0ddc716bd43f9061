import { ToolError } from '@toolplane/toolmodel';
import {
  learningSettings,
  type LearningSearcher,
  type LearningSearcherOptions,
} from './learning-options.js';
import {
  boundedQuery,
  compareHits,
  matchesFilter,
  type SearchDocument,
  type SearcherQuery,
  type SearchHit,
} from './searcher.js';
import { isQueryFiller, tokenize } from './tokenize.js';
import type { EvidenceStore, UsageEvidence } from './usage-evidence.js';

/**
 * Evidence is scaled by the inner searcher's best hit, but never by less than the score of a
 * match of this many words no tool holds (when the searcher tells specificity): a request in
 * words the catalogue lacks matches only weak, incidental words, and scaled by that weak best
 * hit, evidence could not lift its tool above them. On the tuning replay of the words set at
 * 10k (learning-tuning-requests.ts) this took the measured half's top-5 gain from +9.7 to +25.8
 * points. Raising `weight` instead (2) gained as much there but cost requests for tools never
 * called 4 points of top-1 (paraphrases of half the tools replayed, the other half's tuning
 * requests measured); the floor costs them nothing, since it only acts when the best hit is weak.
 */
const EVIDENCE_FLOOR = 5;
/** How many tools' own terms are kept between searches. */
const OWN_CACHE = 256;
/** Hits asked of the inner searcher, so a tool with evidence but a low rank can still rise. */
const POOL = 20;

interface Entry {
  weight: number;
  updatedAt: number;
}

/** One search of a session: its text and the results it showed (IDs still to be called). */
interface ShownSearch {
  /** The query as searched ({@link boundedQuery}): what a caller sends never grows what is kept. */
  readonly query: string;
  readonly ids: Set<string>;
  /** The first result shown: the tool search already ranked best for this query. */
  readonly top: string | undefined;
  at: number;
}

/**
 * A call is credited to the search that showed the tool and to at most this many searches in
 * all of the session: the ones before it are the same need in words the catalogue lacks.
 */
const SEARCH_CHAIN = 3;

/** No tokenised term contains a space: the specificity of a term no tool holds. */
const UNKNOWN_TERM = ' ';

/**
 * The evidence key of a whole request: its distinct terms, sorted, after a mark no tokenised
 * term holds, so word order and repeated words do not matter and no term is mistaken for it.
 */
export function requestKey(terms: readonly string[]): string {
  return `=${[...new Set(terms)].sort().join(' ')}`;
}

/**
 * Wraps a searcher with learning from use: when a search is followed, in the same session, by
 * a call of one of its results, the query's terms become evidence for that tool, bounded per
 * tool and decaying with a half-life. Later searches add each tool's evidence for their terms
 * (its share of the term's evidence, weighted by how much evidence the term has) as an extra
 * field, so a tool people reach with words its description lacks rises, and can enter the
 * results although the words never match it. Evidence is written to an optional
 * {@link EvidenceStore} without waiting (as new observations added to the store's, when it
 * offers {@link EvidenceStore.add}), and loaded from it at start without blocking; a forget the
 * store tells of ({@link EvidenceStore.onForget}) clears that evidence here too.
 *
 * @throws {ToolError} `invalid_argument` for an option out of range.
 */
export function createLearningSearcher(options: LearningSearcherOptions = {}): LearningSearcher {
  const { inner, learn, weight, halfLife, maxTerms, followUp, maxSessions, now, store } =
    learningSettings(options);
  const reportError = (error: unknown, what: string): void => {
    const wrapped = ToolError.isInstance(error)
      ? error
      : new ToolError('store_error', `cannot ${what} search evidence`, { cause: error });
    options.onError?.(wrapped);
  };

  const docs = new Map<string, SearchDocument>();
  // term → tool → evidence, and per tool the terms it holds (for the bound and forgetting).
  const byTerm = new Map<string, Map<string, Entry>>();
  const termsOf = new Map<string, Set<string>>();
  // Per session its last few searches (oldest first): the query and the results shown.
  const sessions = new Map<string, ShownSearch[]>();
  let pending: Promise<void> = Promise.resolve();

  const decayed = (entry: Entry, at: number): number =>
    entry.weight * 0.5 ** (Math.max(0, at - entry.updatedAt) / halfLife);

  function put(row: UsageEvidence): void {
    let tools = byTerm.get(row.term);
    if (tools === undefined) byTerm.set(row.term, (tools = new Map<string, Entry>()));
    const known = tools.get(row.toolId);
    if (known !== undefined && known.updatedAt > row.updatedAt) return;
    tools.set(row.toolId, { weight: row.weight, updatedAt: row.updatedAt });
    let terms = termsOf.get(row.toolId);
    if (terms === undefined) termsOf.set(row.toolId, (terms = new Set()));
    terms.add(row.term);
  }

  function drop(toolId: string, term: string): void {
    const tools = byTerm.get(term);
    tools?.delete(toolId);
    if (tools?.size === 0) byTerm.delete(term);
    termsOf.get(toolId)?.delete(term);
  }

  function write(work: (target: EvidenceStore) => Promise<void>, what: string): void {
    if (store === undefined) return;
    pending = pending
      .then(() => work(store))
      .catch((error: unknown) => {
        reportError(error, what);
      });
  }

  // What was forgotten while the store's rows were loading: the rows read may predate it.
  let loading = store !== undefined && learn;
  let allForgottenWhileLoading = false;
  const forgottenWhileLoading = new Set<string>();

  // Counts the forgets heard or made, so a store's answer read before one is not applied after it.
  let forgets = 0;

  /** Drops the evidence of `toolId` (all of it when undefined) from memory. */
  function clear(toolId: string | undefined): void {
    forgets++;
    if (toolId === undefined) {
      byTerm.clear();
      termsOf.clear();
    } else {
      for (const term of [...(termsOf.get(toolId) ?? [])]) drop(toolId, term);
      termsOf.delete(toolId);
    }
    if (!loading) return;
    if (toolId === undefined) allForgottenWhileLoading = true;
    else forgottenWhileLoading.add(toolId);
  }

  // A forget made anywhere on the store (another process, another instance of the fleet) clears
  // it here too. Heard before the load starts, so none made meanwhile is missed.
  if (store !== undefined && learn) {
    store.onForget?.((forget) => {
      clear(forget.toolId);
    });
  }

  const ready: Promise<void> = !loading
    ? Promise.resolve()
    : (store as EvidenceStore).load().then(
        (rows) => {
          loading = false;
          if (allForgottenWhileLoading) return;
          for (const row of rows) if (!forgottenWhileLoading.has(row.toolId)) put(row);
          forgottenWhileLoading.clear();
        },
        (error: unknown) => {
          loading = false;
          forgottenWhileLoading.clear();
          reportError(error, 'load');
        },
      );

  function queryTerms(text: string): string[] {
    const terms = tokenize(text).filter((term) => !isQueryFiller(term));
    return [...new Set(terms)];
  }

  // Each tool's own terms, for the best hit of each search with evidence: a few recent tools.
  const ownCache = new Map<string, Set<string>>();

  /** The terms of a tool's own text (none for a tool not indexed here). */
  function ownTerms(toolId: string): Set<string> {
    let terms = ownCache.get(toolId);
    if (terms !== undefined) return terms;
    const doc = docs.get(toolId);
    if (doc === undefined) return new Set();
    terms = new Set(
      tokenize([doc.namespace, doc.name, doc.title, doc.description, ...doc.tags].join(' ')),
    );
    if (ownCache.size >= OWN_CACHE) ownCache.delete(ownCache.keys().next().value as string);
    ownCache.set(toolId, terms);
    return terms;
  }

  /**
   * Records `query`'s terms as evidence for `toolId`. A term of the tool's own text is not
   * evidence on its own: search already scores it, and every sibling holds it too (`slack`,
   * `channel`, `graph`), so crediting it to the tools called most would lift them for every
   * request with that word (the tuning harm check, bench/learning-harm.ts: 3.3 points of top-1
   * lost on requests for tools never called, before this and the best-hit rule of
   * `evidenceFor`). When search did not rank the tool first, the whole request is remembered
   * too ({@link requestKey}): it counts again, in full, only for the same request (`what is the
   * date` → `time_now`, whose words `date_add` holds as well).
   */
  function record(query: string, toolId: string, searchFoundIt = false): void {
    if (!learn) return;
    const at = now();
    const saved: UsageEvidence[] = [];
    const own = ownTerms(toolId);
    // Learned exactly as searched: a huge query costs no more than its first words.
    const words = queryTerms(boundedQuery(query));
    const keys = words.filter((term) => !own.has(term));
    if (!searchFoundIt && words.length > 0) keys.push(requestKey(words));
    for (const term of keys) {
      const known = byTerm.get(term)?.get(toolId);
      const row = {
        toolId,
        term,
        weight: (known === undefined ? 0 : decayed(known, at)) + 1,
        updatedAt: at,
      };
      put(row);
      saved.push(row);
    }
    const terms = termsOf.get(toolId);
    const evicted: { toolId: string; term: string }[] = [];
    if (terms !== undefined && terms.size > maxTerms) {
      // The weakest go, the first held among equals (the sort is stable): one sort, not a scan
      // of every term per term dropped.
      const ranked = [...terms]
        .map((term) => {
          const entry = byTerm.get(term)?.get(toolId);
          return { term, value: entry === undefined ? 0 : decayed(entry, at) };
        })
        .sort((a, b) => a.value - b.value);
      for (const { term } of ranked.slice(0, terms.size - maxTerms)) {
        drop(toolId, term);
        evicted.push({ toolId, term });
      }
    }
    if (saved.length === 0) return;
    // Only this observation goes to a store that adds: a total computed from memory would bring
    // back evidence forgotten elsewhere that this searcher has not heard of yet. Every term
    // observed goes, even one this memory's bound just dropped: the store bounds the tool by
    // every instance's weights, which this memory may not know.
    const observed = saved.map((row) => ({ ...row, weight: 1 }));
    const epoch = forgets;
    write(async (target) => {
      if (target.add === undefined) {
        const gone = new Set(evicted.map((row) => row.term));
        const kept = saved.filter((row) => !gone.has(row.term));
        if (kept.length > 0) await target.save(kept);
      } else {
        const held = await target.add(observed, {
          halfLifeMs: halfLife,
          maxTermsPerTool: maxTerms,
        });
        if (Array.isArray(held)) {
          // A forget since this was sent may have dropped what the store held then.
          if (epoch === forgets) converge(toolId, held, at);
          return;
        }
      }
      // A store that applies no bound of its own is given this one's.
      if (evicted.length > 0) await target.remove(evicted);
    }, 'save');
  }

  /**
   * Makes memory's evidence of `toolId` what the store holds (`held`, every row it kept of the
   * tool after a write made at `sentAt`), so instances learning the same tool converge: a term
   * the store's bound dropped goes, a term other instances raised comes. A term recorded here
   * after `sentAt` stays: its own write is still on its way.
   */
  function converge(toolId: string, held: readonly UsageEvidence[], sentAt: number): void {
    const rows = held.filter((row) => row.toolId === toolId);
    const kept = new Set(rows.map((row) => row.term));
    for (const term of [...(termsOf.get(toolId) ?? [])]) {
      const entry = byTerm.get(term)?.get(toolId);
      if (!kept.has(term) && (entry === undefined || entry.updatedAt <= sentAt)) {
        drop(toolId, term);
      }
    }
    for (const row of rows) put(row);
  }

  /**
   * Each term's part of the query: an equal share, half of it always and half scaled by how
   * specific the term is to few tools when the inner searcher can tell (full for a word no
   * tool's text holds, such as a user's own word for a need; little for `list` or `file`),
   * against that fixed top rather than against the query's other words. On the tuning replay
   * at 10k, equal shares cost 1.4 points of top-1 on requests for tools never called (80.6 →
   * 79.2%); these parts cost none and still lift the called tools' requests (78.2 → 84.6%).
   */
  function termParts(terms: readonly string[]): number[] {
    const specificity = inner.specificity?.bind(inner);
    if (specificity === undefined) return terms.map(() => 1 / terms.length);
    const top = specificity(UNKNOWN_TERM);
    if (!(top > 0)) return terms.map(() => 1 / terms.length);
    return terms.map((term) => (0.5 + 0.5 * Math.min(1, specificity(term) / top)) / terms.length);
  }

  /**
   * Each tool's evidence for the query, 0–1: for each term, the tool's share of that term's
   * evidence, by the term's confidence and its part of the query.
   */
  function evidenceFor(terms: readonly string[], best: ReadonlySet<string>): Map<string, number> {
    const at = now();
    const scores = new Map<string, number>();
    const parts = byTerm.size === 0 ? [] : termParts(terms);
    for (const [t, term] of terms.entries()) {
      const tools = byTerm.get(term);
      // A word the best hit holds has found its tool already: evidence only adds the words
      // search could not place, so it cannot pull a called sibling over the right tool (the
      // harm check at 10k: 6 requests lost top-1 with it counted, none without; the words
      // tuning half's top-5 gain +25.8 → +19.4 points).
      if (tools === undefined || best.has(term)) continue;
      let total = 0;
      const values: [string, number][] = [];
      for (const [toolId, entry] of tools) {
        const value = decayed(entry, at);
        total += value;
        values.push([toolId, value]);
      }
      // One observation is a hint, several a pattern.
      const confidence = total / (total + 1);
      for (const [toolId, value] of values) {
        const share = (value / total) * confidence * (parts[t] as number);
        scores.set(toolId, (scores.get(toolId) ?? 0) + share);
      }
    }
    // The same request made before (in any word order): the tools called after it get its
    // whole weight, the words the best hit holds included, since this very request led there.
    const tools = terms.length === 0 ? undefined : byTerm.get(requestKey(terms));
    if (tools !== undefined) {
      let whole = 0;
      for (const part of parts) whole += part;
      let total = 0;
      for (const entry of tools.values()) total += decayed(entry, at);
      const confidence = total / (total + 1);
      for (const [toolId, entry] of tools) {
        const share = (decayed(entry, at) / total) * confidence * whole;
        scores.set(toolId, (scores.get(toolId) ?? 0) + share);
      }
    }
    return scores;
  }

  async function search(query: SearcherQuery): Promise<readonly SearchHit[]> {
    if (!learn || byTerm.size === 0 || weight === 0) return inner.search(query);
    const terms = queryTerms(query.text);
    if (!terms.some((term) => byTerm.has(term)) && !byTerm.has(requestKey(terms))) {
      return inner.search(query);
    }
    const hits = await inner.search({ ...query, limit: Math.max(POOL, query.limit) });
    const evidence = evidenceFor(terms, hits[0] === undefined ? new Set() : ownTerms(hits[0].id));
    if (evidence.size === 0) return hits.slice(0, query.limit);
    const floor = EVIDENCE_FLOOR * (inner.specificity?.(UNKNOWN_TERM) ?? 0);
    const top = Math.max(hits[0]?.score ?? 0, floor);
    const scale = top > 0 ? top : 1;
    const merged = new Map<string, number>();
    for (const hit of hits) merged.set(hit.id, hit.score / scale);
    for (const [toolId, value] of evidence) {
      const doc = docs.get(toolId);
      if (doc === undefined || !matchesFilter(doc, query)) continue;
      merged.set(toolId, (merged.get(toolId) ?? 0) + weight * value);
    }
    return [...merged]
      .map(([id, score]) => ({ id, score: score * scale }))
      .sort(compareHits)
      .slice(0, query.limit);
  }

  return {
    upsert(doc) {
      docs.set(doc.id, doc);
      ownCache.delete(doc.id);
      inner.upsert(doc);
    },
    remove(id) {
      docs.delete(id);
      ownCache.delete(id);
      inner.remove(id);
    },
    search,
    observeSearch(session, raw, resultIds) {
      if (!learn) return;
      const query = boundedQuery(raw);
      const searches = sessions.get(session) ?? [];
      sessions.delete(session);
      const last = searches.at(-1);
      // The next page of the same search adds its results to what the session was shown.
      if (last?.query === query) {
        for (const id of resultIds) last.ids.add(id);
        last.at = now();
      } else {
        searches.push({ query, ids: new Set(resultIds), top: resultIds[0], at: now() });
        if (searches.length > SEARCH_CHAIN) searches.shift();
      }
      sessions.set(session, searches);
      // Maps iterate in insertion order: the first key is the least recently searched session.
      if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value as string);
    },
    observeCall(session, toolId) {
      const searches = sessions.get(session);
      if (!learn || searches === undefined) return false;
      const at = now();
      let shown = -1;
      for (let i = searches.length - 1; i >= 0 && shown < 0; i--) {
        const search = searches[i] as ShownSearch;
        if (at - search.at <= followUp && search.ids.has(toolId)) shown = i;
      }
      if (shown < 0) return false;
      const found = searches[shown] as ShownSearch;
      found.ids.delete(toolId);
      record(found.query, toolId, found.top === toolId);
      // Searches just before it were the same need in other words: the words that failed to
      // find it (or found it too low to be trusted, since the session searched again) are the
      // evidence search lacks most. Each counts once.
      const earlier = searches.slice(0, shown).filter((search) => at - search.at <= followUp);
      for (const search of earlier) record(search.query, toolId, search.top === toolId);
      if (earlier.length > 0) {
        sessions.set(
          session,
          searches.filter((search) => !earlier.includes(search)),
        );
      }
      return true;
    },
    record: (query, toolId) => {
      record(query, toolId);
    },
    async forget(toolId) {
      clear(toolId);
      write((target) => target.forget(toolId), 'forget');
      await pending;
    },
    ready,
    flush: () => pending,
  };
}
