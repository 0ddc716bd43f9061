/** How much a term counts in each field; larger means a match there ranks higher. */
export interface FieldWeights {
  readonly name: number;
  readonly namespace: number;
  readonly tags: number;
  readonly title: number;
  readonly description: number;
}

/** Options for `createBm25Searcher`. */
export interface Bm25Options {
  /** Field weights; default name 3, namespace 3, tags 3, title 2, description 2. */
  readonly weights?: Partial<FieldWeights>;
  /** BM25 term-frequency saturation (default 1.2). */
  readonly k1?: number;
  /** BM25 length normalisation within each field, 0–1 (default 0.75). */
  readonly b?: number;
  /**
   * Groups of words that mean the same thing to a searcher; a query word also matches the
   * rest of its group, at {@link Bm25Options.synonymWeight}. Default `DEFAULT_SYNONYMS`;
   * `[]` turns expansion off.
   */
  readonly synonyms?: readonly (readonly string[])[];
  /**
   * Everyday words for the catalogue's words, expanded one way only: each line is a word, then
   * the words that expand to it (`['cancel', 'kill']`). Default `DEFAULT_ALIASES` when
   * {@link Bm25Options.synonyms} is not given either, otherwise none; `[]` turns them off.
   */
  readonly aliases?: readonly (readonly string[])[];
  /** How much a match on a synonym counts against one on the word itself, 0–1 (default 0.6). */
  readonly synonymWeight?: number;
  /**
   * How much a match on an alias's catalogue word counts against one on the query word itself,
   * 0–1 (default 1: `kill` means cancel as much as `cancel` does).
   */
  readonly aliasWeight?: number;
  /**
   * Typo correction, off by default: how much a match on the correction of a misspelt query
   * word counts, 0–1 (0.7 works well; default 0). A query word no tool contains, with no
   * synonyms, of six letters or more as a stem, is then also looked up as the known word one
   * edit away that most tools contain (`serach` → `search`). Nothing is stored for it, but each
   * such word costs about 20 µs of lookups (some 450 variants), whether or not one is found:
   * at 100,000 tools that is 6–10% on the median query of the quality sets, so it is for
   * callers whose users type (a search box) rather than agents, which rarely misspell.
   */
  readonly typoWeight?: number;
  /**
   * How strongly tools matching more of the query (weighted by rarity) are preferred, 0–1
   * (default 0.5): a tool's score is multiplied by `1 − coverage + coverage · matched share`.
   */
  readonly coverage?: number;
  /**
   * Namespace prior, 0–1 (default 0.5): a tool also earns this share of what the other tools of
   * its namespace matched: their summed score spread over
   * {@link Bm25Options.namespacePriorMatches}, but never more than the best of them. So a query
   * about issues favours a server with several tools about issues over a lone look-alike
   * elsewhere, while a namespace of many weak look-alikes cannot outweigh one strong match: the
   * prior is at most `namespacePrior` times the namespace's best score.
   */
  readonly namespacePrior?: number;
  /**
   * Over how many matches the namespace prior spreads the other tools' summed score, 1–100
   * (default 8).
   */
  readonly namespacePriorMatches?: number;
  /**
   * Bonus for matching the tool's name as a whole, 0–10 (default 0.3): a score is multiplied by
   * `1 + nameMatch · share of the name's terms the query matched`, so `cancel a subscription`
   * prefers `cancel_subscription` to `cancel_subscription_export`.
   */
  readonly nameMatch?: number;
  /**
   * Multi-intent requests, 0–1 (default 0.3; 0 turns it off): a request of two or more clauses
   * (split at commas, `and`, `then`, …) is also searched once per clause, that clause's words
   * counting fully and the rest at {@link Bm25Options.intentContext}; each clause's tools join
   * the candidates at this share of their own list's best score, a word is pruned only against
   * the heaviest word of its own clause, and the results are spread over the clauses
   * ({@link Bm25Options.intentDiversity}). Chosen on the tuning halves of the two-tool sets.
   */
  readonly intents?: number;
  /**
   * How much the other clauses' words count when one clause is searched, 0–1 (default 0.2):
   * little, so a clause's own list is not led by tools that pair its verb with the other
   * clause's object (`merge_release` for "merge the PR and publish a release"). 0.3 → 0.2
   * gained one own two-tool tuning request at 10k tools and changed no single-need result.
   */
  readonly intentContext?: number;
  /**
   * How strongly a multi-intent request's results are spread over its intents, 0–1 (default
   * 0.6): each next result is the one with the best share of the best score plus this times the
   * number of intents it serves that no earlier result served.
   */
  readonly intentDiversity?: number;
  /**
   * How much a multi-intent request's next result gains for the query words it matches that no
   * earlier result matched, 0–2 (default 1; each word weighted by its idf, the whole query
   * worth this against the best hit's score of 1). A maximal-marginal-relevance step over
   * words: a tool that only repeats the first need's words yields to one that matches the
   * second's. Each clause's own best tool also keeps a place right after the first result.
   */
  readonly intentCoverage?: number;
  /**
   * How many of each clause's own best tools a multi-intent request keeps right after its first
   * result, 0–8 (default 1): round by round, every clause's best not yet shown, then every
   * clause's second, and so on. Two slots gained two implicit two-tool tuning requests at 10k
   * tools with clauses broken at `before`, `after`, `but` and `?` too, but the quality tests'
   * public multi-tool gate failed with them: kept at one. (Those breaks alone, with one slot,
   * later gained one implicit two-tool tuning request at 10k tools and changed no other rate.)
   */
  readonly intentSlots?: number;
}

/** The default field weights of `createBm25Searcher`. */
export const DEFAULT_FIELD_WEIGHTS: FieldWeights = Object.freeze({
  name: 3,
  namespace: 3,
  tags: 3,
  title: 2,
  description: 2,
});
