import { ToolError } from '@toolplane/toolmodel';
import { checkNumber } from './check-number.js';

/** One piece of learned evidence: a query term led to a call of a tool. */
export interface UsageEvidence {
  readonly toolId: string;
  /**
   * A query term as {@link tokenize} makes it (stemmed, lower case), or a whole request: `=` and
   * its distinct terms, sorted and space-separated (the learning searcher's `requestKey`).
   */
  readonly term: string;
  /** The evidence's weight at `updatedAt`; it halves every half-life after that. */
  readonly weight: number;
  /** Milliseconds since the epoch. */
  readonly updatedAt: number;
}

/** A forget an {@link EvidenceStore} tells its listeners of: one tool's evidence, or all of it. */
export interface EvidenceForget {
  /** The tool whose evidence was dropped; `undefined` when every tool's was. */
  readonly toolId: string | undefined;
}

/**
 * Where learned search evidence is kept, so it outlives a process and is shared by every
 * instance of a fleet: a memory store ({@link createMemoryEvidenceStore}), SQLite
 * (`@toolplane/store-sqlite`'s `createSqliteEvidenceStore`), PostgreSQL
 * (`@toolplane/store-postgres`'s `createPostgresEvidenceStore`) or any store implementing these.
 */
export interface EvidenceStore {
  /** Every row kept. */
  load(options?: { signal?: AbortSignal }): Promise<readonly UsageEvidence[]>;
  /** Inserts or replaces these rows; rows of the same tool not named are left as they are. */
  save(rows: readonly UsageEvidence[]): Promise<void>;
  /**
   * Optional: adds these rows' weights to the rows kept ({@link addEvidence}), inserting the
   * ones not kept. A learning searcher writes what it observes this way when the store offers
   * it: only new observations reach the store, so evidence forgotten meanwhile (by another
   * instance, which this one may not have heard of yet) never comes back, and two instances
   * learning the same term at once both count.
   */
  add?(rows: readonly UsageEvidence[], options: { readonly halfLifeMs: number }): Promise<void>;
  /** Deletes these (toolId, term) rows, e.g. those a bound evicted. */
  remove(rows: readonly Pick<UsageEvidence, 'toolId' | 'term'>[]): Promise<void>;
  /**
   * Deletes every row of `toolId`, or every row when it is not given, and tells every
   * {@link EvidenceStore.onForget} listener of the stores sharing it.
   */
  forget(toolId?: string): Promise<void>;
  /**
   * Optional: calls `listener` for every forget made on this store or on any store sharing its
   * data (another process on the same SQLite file, another instance on the same PostgreSQL
   * schema), soon after it is made. A learning searcher subscribes, so a forget made anywhere
   * clears every running searcher's memory of that evidence.
   * @returns the unsubscribe.
   */
  onForget?(listener: (forget: EvidenceForget) => void): () => void;
}

/**
 * `kept` and `added` together, at the later of their times: each halves every `halfLifeMs`
 * until then, and the two weights are summed. `kept` absent, `added` as it is.
 *
 * @throws {ToolError} `invalid_argument` when `halfLifeMs` is not a number from 1 to 1e13.
 */
export function addEvidence(
  kept: UsageEvidence | undefined,
  added: UsageEvidence,
  halfLifeMs: number,
): UsageEvidence {
  checkNumber(halfLifeMs, 'halfLifeMs', 1, 1e13);
  if (kept === undefined) return { ...added };
  const at = Math.max(kept.updatedAt, added.updatedAt);
  const decay = (row: UsageEvidence) => row.weight * 0.5 ** ((at - row.updatedAt) / halfLifeMs);
  return {
    toolId: added.toolId,
    term: added.term,
    weight: decay(kept) + decay(added),
    updatedAt: at,
  };
}

/**
 * An {@link EvidenceStore} in memory: for tests, and for one process that needs no persistence.
 * Its forgets reach the listeners of this store object.
 */
export function createMemoryEvidenceStore(): EvidenceStore {
  const rows = new Map<string, UsageEvidence>();
  const listeners = new Set<(forget: EvidenceForget) => void>();
  const key = (toolId: string, term: string): string => `${toolId}\u0000${term}`;
  return {
    load: (options = {}) => {
      if (options.signal?.aborted === true) {
        return Promise.reject(new ToolError('cancelled', 'loading search evidence was cancelled'));
      }
      return Promise.resolve([...rows.values()]);
    },
    save: (saved) => {
      for (const row of saved) rows.set(key(row.toolId, row.term), { ...row });
      return Promise.resolve();
    },
    // A throw in the executor (a bad halfLifeMs) is the promise's rejection.
    add: (added, { halfLifeMs }) =>
      new Promise<void>((resolve) => {
        for (const row of added) {
          const k = key(row.toolId, row.term);
          rows.set(k, addEvidence(rows.get(k), row, halfLifeMs));
        }
        resolve();
      }),
    remove: (removed) => {
      for (const row of removed) rows.delete(key(row.toolId, row.term));
      return Promise.resolve();
    },
    forget: (toolId) => {
      if (toolId === undefined) rows.clear();
      else for (const [k, row] of rows) if (row.toolId === toolId) rows.delete(k);
      for (const listener of [...listeners]) listener({ toolId });
      return Promise.resolve();
    },
    onForget: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
