import { ToolError } from '@toolplane/toolmodel';

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

/**
 * Where learned search evidence is kept, so it outlives a process and is shared by every
 * instance of a fleet: a memory store ({@link createMemoryEvidenceStore}), SQLite
 * (`@toolplane/store-sqlite`'s `createSqliteEvidenceStore`) or any store implementing these.
 * Writes are upserts of (toolId, term) rows: the last write of a row wins.
 */
export interface EvidenceStore {
  /** Every row kept. */
  load(options?: { signal?: AbortSignal }): Promise<readonly UsageEvidence[]>;
  /** Inserts or replaces these rows; rows of the same tool not named are left as they are. */
  save(rows: readonly UsageEvidence[]): Promise<void>;
  /** Deletes these (toolId, term) rows, e.g. those a bound evicted. */
  remove(rows: readonly Pick<UsageEvidence, 'toolId' | 'term'>[]): Promise<void>;
  /** Deletes every row of `toolId`, or every row when it is not given. */
  forget(toolId?: string): Promise<void>;
}

/**
 * An {@link EvidenceStore} in memory: for tests, and for one process that needs no persistence.
 */
export function createMemoryEvidenceStore(): EvidenceStore {
  const rows = new Map<string, UsageEvidence>();
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
    remove: (removed) => {
      for (const row of removed) rows.delete(key(row.toolId, row.term));
      return Promise.resolve();
    },
    forget: (toolId) => {
      if (toolId === undefined) rows.clear();
      else for (const [k, row] of rows) if (row.toolId === toolId) rows.delete(k);
      return Promise.resolve();
    },
  };
}
