import { optionKeys, refuseUnknownOptions, type ToolError } from '@toolplane/toolmodel';
import { createBm25Searcher } from './bm25-searcher.js';
import { checkNumber } from './check-number.js';
import type { Searcher, SearcherQuery, SearchHit } from './searcher.js';
import type { EvidenceStore } from './usage-evidence.js';

/** Options for {@link createLearningSearcher}. */
export interface LearningSearcherOptions {
  /** The searcher whose ranking evidence is added to; default a new BM25 searcher. */
  readonly searcher?: Searcher;
  /** Where evidence is kept and shared; default none (this process only). */
  readonly store?: EvidenceStore;
  /** `false` turns learning off: nothing is recorded and searches pass straight through. */
  readonly learn?: boolean;
  /**
   * How much evidence counts against the searcher's best hit, or against a match of
   * five words no tool holds when the best hit scores less, 0–10 (default 1).
   */
  readonly weight?: number;
  /** Evidence halves in this many milliseconds (default 30 days). */
  readonly halfLifeMs?: number;
  /** At most this many query terms are kept per tool; the weakest go first (default 32). */
  readonly maxTermsPerTool?: number;
  /** A call counts as following a search within this many milliseconds (default 10 minutes). */
  readonly followUpMs?: number;
  /** At most this many sessions' last searches are remembered (default 10,000). */
  readonly maxSessions?: number;
  /** Told of a store failure; learning goes on in memory. Default: ignored. */
  readonly onError?: (error: ToolError) => void;
  /** The clock, for tests. */
  readonly now?: () => number;
}

/** A {@link Searcher} that also ranks by what was called after earlier searches. */
export interface LearningSearcher extends Searcher {
  search(query: SearcherQuery): Promise<readonly SearchHit[]>;
  /**
   * Notes the results a session was shown for a query, for {@link LearningSearcher.observeCall}.
   * The query is kept and learned as the index searches it: its first {@link MAX_QUERY_LENGTH}
   * characters.
   */
  observeSearch(session: string, query: string, resultIds: readonly string[]): void;
  /**
   * Notes that a session called a tool: when it was among the results of one of that session's
   * last three searches (within `followUpMs`), the terms of the last search that showed it become
   * evidence for the tool, and so do those of the session's searches just before it (whether
   * they showed the tool too low or not at all, the session searched again). Words of the
   * tool's own text are never evidence on their own; a search that did not rank the tool first
   * is also remembered whole, and counts again for the same request.
   * @returns whether evidence was recorded.
   */
  observeCall(session: string, toolId: string): boolean;
  /**
   * Records evidence directly: `query`'s terms (of its first {@link MAX_QUERY_LENGTH}
   * characters) led to `toolId`.
   */
  record(query: string, toolId: string): void;
  /**
   * Drops the evidence of `toolId`, or all of it, here and in the store. Every other searcher
   * on a store that tells forgets ({@link EvidenceStore.onForget}) drops it from memory too.
   */
  forget(toolId?: string): Promise<void>;
  /** Settles once the store's evidence is loaded (searches before then use what is known). */
  readonly ready: Promise<void>;
  /** Settles once every write so far has reached the store. */
  flush(): Promise<void>;
}

/** Whether `searcher` learns from use (made by {@link createLearningSearcher}). */
export function isLearningSearcher(searcher: Searcher): searcher is LearningSearcher {
  const s = searcher as Partial<LearningSearcher>;
  return typeof s.observeSearch === 'function' && typeof s.observeCall === 'function';
}

const LEARNING_KEYS = optionKeys<LearningSearcherOptions>({
  searcher: true,
  store: true,
  learn: true,
  weight: true,
  halfLifeMs: true,
  maxTermsPerTool: true,
  followUpMs: true,
  maxSessions: true,
  onError: true,
  now: true,
});

const DAY_MS = 86_400_000;

/** A learning searcher's options, checked, with their defaults. */
export interface LearningSettings {
  readonly inner: Searcher;
  readonly learn: boolean;
  readonly weight: number;
  readonly halfLife: number;
  readonly maxTerms: number;
  readonly followUp: number;
  readonly maxSessions: number;
  readonly now: () => number;
  readonly store: EvidenceStore | undefined;
}

/**
 * Checks `options` and fills in the defaults.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option or one out of range.
 */
export function learningSettings(options: LearningSearcherOptions): LearningSettings {
  refuseUnknownOptions(options, LEARNING_KEYS, 'createLearningSearcher');
  return {
    inner: options.searcher ?? createBm25Searcher(),
    learn: options.learn ?? true,
    weight: checkNumber(options.weight ?? 1, 'weight', 0, 10),
    halfLife: checkNumber(options.halfLifeMs ?? 30 * DAY_MS, 'halfLifeMs', 1, 1e13),
    maxTerms: Math.round(checkNumber(options.maxTermsPerTool ?? 32, 'maxTermsPerTool', 1, 1000)),
    followUp: checkNumber(options.followUpMs ?? 600_000, 'followUpMs', 0, 1e10),
    maxSessions: Math.round(checkNumber(options.maxSessions ?? 10_000, 'maxSessions', 1, 1e7)),
    now: options.now ?? Date.now,
    store: options.store,
  };
}
