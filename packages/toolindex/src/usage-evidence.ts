import { ToolError } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';
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

/** The latest time a `Date` can hold, in ms since the epoch: the bound of `updatedAt`. */
const LATEST_TIME = 8.64e15;

/**
 * Checks rows handed to {@link EvidenceStore.save} or {@link EvidenceStore.add}, for store
 * authors: an array of rows, each with a non-empty `toolId` and `term` (well-formed text without
 * NUL, which every store keeps as written), a finite `weight` of 0 or more and an `updatedAt` a
 * `Date` can hold (0 to 8.64e15). A weight that is `NaN` or infinite, kept, would make every
 * later sum with it, and the ranking it feeds, the same.
 *
 * @throws {ToolError} `invalid_argument` naming the first bad row and what is wrong with it.
 */
export function checkEvidenceRows(rows: readonly UsageEvidence[]): void {
  checkRowArray(rows);
  rows.forEach((row, at) => {
    checkKeys(row, at);
    const { weight, updatedAt } = row;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw badRow(at, `weight must be a finite number of 0 or more, got ${String(weight)}`);
    }
    if (
      typeof updatedAt !== 'number' ||
      !Number.isFinite(updatedAt) ||
      updatedAt < 0 ||
      updatedAt > LATEST_TIME
    ) {
      throw badRow(
        at,
        `updatedAt must be ms since the epoch from 0 to ${String(LATEST_TIME)}, got ${String(updatedAt)}`,
      );
    }
  });
}

/**
 * Checks the rows handed to {@link EvidenceStore.remove}, for store authors: an array of rows,
 * each with a non-empty `toolId` and `term`.
 *
 * @throws {ToolError} `invalid_argument` naming the first bad row.
 */
export function checkEvidenceKeys(rows: readonly Pick<UsageEvidence, 'toolId' | 'term'>[]): void {
  checkRowArray(rows);
  rows.forEach(checkKeys);
}

function checkRowArray(rows: unknown): void {
  if (!Array.isArray(rows)) {
    throw new ToolError('invalid_argument', 'evidence rows must be an array');
  }
}

function checkKeys(row: unknown, at: number): void {
  if (typeof row !== 'object' || row === null) throw badRow(at, 'it is not an object');
  const { toolId, term } = row as Partial<UsageEvidence>;
  for (const [field, value] of [
    ['toolId', toolId],
    ['term', term],
  ] as const) {
    if (typeof value !== 'string' || value.length === 0) {
      throw badRow(at, `${field} must be a non-empty string, got ${describe(value)}`);
    }
    // Kept as written by every store: PostgreSQL stores no NUL, and an SQL store would keep a
    // lone surrogate as U+FFFD, loading back another string than the one saved.
    if (UNSTORABLE.test(value)) {
      throw badRow(
        at,
        `${field} must be well-formed text without NUL (U+0000), got ${quoted(value)}`,
      );
    }
  }
}

// NUL, or a surrogate not in a pair.
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function badRow(at: number, what: string): ToolError {
  return new ToolError('invalid_argument', `evidence row ${String(at)}: ${what}`);
}

/** `value` for a message: a string quoted and cut, so a huge one does not make the error huge. */
function describe(value: unknown): string {
  return typeof value === 'string' ? quoted(value) : String(value);
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
  /**
   * Inserts these rows, each replacing the row kept of its tool and term unless that one is newer
   * (a later `updatedAt`: an instance that saves late never undoes a newer save); rows of the same
   * tool not named are left as they are.
   */
  save(rows: readonly UsageEvidence[]): Promise<void>;
  /**
   * Optional: adds these rows' weights to the rows kept ({@link addEvidence}), inserting the
   * ones not kept. A learning searcher writes what it observes this way when the store offers
   * it: only new observations reach the store, so evidence forgotten meanwhile (by another
   * instance, which this one may not have heard of yet) never comes back, and two instances
   * learning the same term at once both count.
   *
   * With `maxTermsPerTool`, the store also bounds each tool the rows name, in the same
   * transaction as the sum: of the rows it then holds for that tool (every instance's), it keeps
   * the `maxTermsPerTool` heaviest, weights decayed to one time ({@link keepHeaviest}), deletes
   * the rest, and resolves with the rows it kept of those tools. So the bound is applied to the
   * shared rows, never by one instance deleting a term by its own partial view (which would drop
   * the weight other instances added to it), and the caller can make its memory of those tools
   * match the store's. A store that resolves with nothing has applied no bound; the learning
   * searcher then removes what its own bound evicted ({@link EvidenceStore.remove}).
   */
  add?(
    rows: readonly UsageEvidence[],
    options: { readonly halfLifeMs: number; readonly maxTermsPerTool?: number },
    // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a store written before the bound, resolving with nothing, still fits
  ): Promise<readonly UsageEvidence[] | void>;
  /**
   * Deletes these (toolId, term) rows: those a learning searcher's bound evicted, when `add`
   * applies none.
   */
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
   * clears every running searcher's memory of that evidence. A listener that throws stops
   * neither the other listeners nor the forget ({@link createForgetListeners} keeps them so).
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
 * Of one tool's `rows`, the `max` heaviest with their weights decayed to one time (`halfLifeMs`),
 * and the rest; among equals the later row, then the lower term, is kept. This is the bound a
 * store applies in `add` (see {@link EvidenceStore.add}).
 *
 * @throws {ToolError} `invalid_argument` when `halfLifeMs` is not a number from 1 to 1e13 or
 * `max` not one from 1 to 1000 (a fraction is rounded down).
 */
export function keepHeaviest<T extends UsageEvidence>(
  rows: readonly T[],
  max: number,
  halfLifeMs: number,
): { readonly kept: T[]; readonly evicted: T[] } {
  checkNumber(halfLifeMs, 'halfLifeMs', 1, 1e13);
  const keep = Math.floor(checkNumber(max, 'maxTermsPerTool', 1, 1000));
  // log2 of the weight at time 0: ranks as the decayed weights do at any one time, and never
  // underflows to a tie of zeros however old a row is.
  const rank = (row: T): number =>
    row.weight > 0 ? Math.log2(row.weight) + row.updatedAt / halfLifeMs : -Infinity;
  const sorted = [...rows].sort(
    (a, b) =>
      rank(b) - rank(a) ||
      b.updatedAt - a.updatedAt ||
      (a.term < b.term ? -1 : a.term > b.term ? 1 : 0),
  );
  return { kept: sorted.slice(0, keep), evicted: sorted.slice(keep) };
}

/** The {@link EvidenceStore.onForget} listeners of one store, made by {@link createForgetListeners}. */
export interface ForgetListeners {
  /** Subscribes `listener`; returns its idempotent unsubscribe. */
  add(listener: (forget: EvidenceForget) => void): () => void;
  /** Calls every listener subscribed now with `forget`. Never throws. */
  tell(forget: EvidenceForget): void;
  /** Unsubscribes every listener. */
  clear(): void;
}

/**
 * The listeners an {@link EvidenceStore} tells its forgets to, for store authors. Each
 * subscription is its own, so one function subscribed twice and unsubscribed once is still
 * told. A listener that throws is reported on stderr and stops neither the others nor the
 * forget it is told of, which has committed by then: a forget must reach every searcher.
 */
export function createForgetListeners(): ForgetListeners {
  const listeners = new Set<(forget: EvidenceForget) => void>();
  return {
    add(listener) {
      const subscription = (forget: EvidenceForget): void => {
        listener(forget);
      };
      listeners.add(subscription);
      return () => {
        listeners.delete(subscription);
      };
    },
    tell(forget) {
      for (const listener of [...listeners]) {
        // Unsubscribed by a listener told before it: not told.
        if (!listeners.has(listener)) continue;
        try {
          listener(forget);
        } catch (error) {
          console.error('@toolplane/toolindex: an evidence forget listener threw', error);
        }
      }
    },
    clear() {
      listeners.clear();
    },
  };
}

/**
 * An {@link EvidenceStore} in memory: for tests, and for one process that needs no persistence.
 * Its forgets reach the listeners of this store object.
 */
export function createMemoryEvidenceStore(): EvidenceStore {
  // tool → term → row, so a tool's bound reads its rows alone.
  const tools = new Map<string, Map<string, UsageEvidence>>();
  const listeners = createForgetListeners();
  const termsOf = (toolId: string): Map<string, UsageEvidence> => {
    let terms = tools.get(toolId);
    if (terms === undefined) tools.set(toolId, (terms = new Map<string, UsageEvidence>()));
    return terms;
  };
  return {
    load: (options = {}) => {
      if (options.signal?.aborted === true) {
        return Promise.reject(new ToolError('cancelled', 'loading search evidence was cancelled'));
      }
      return Promise.resolve([...tools.values()].flatMap((terms) => [...terms.values()]));
    },
    save: (saved) =>
      new Promise<void>((resolve) => {
        checkEvidenceRows(saved);
        for (const row of saved) {
          const terms = termsOf(row.toolId);
          const kept = terms.get(row.term);
          if (kept === undefined || row.updatedAt >= kept.updatedAt)
            terms.set(row.term, { ...row });
        }
        resolve();
      }),
    // A throw in the executor (a bad row, halfLifeMs or maxTermsPerTool) is the promise's rejection,
    // before anything is changed.
    add: (added, { halfLifeMs, maxTermsPerTool }) =>
      new Promise<readonly UsageEvidence[] | undefined>((resolve) => {
        checkEvidenceRows(added);
        const next = new Map<string, Map<string, UsageEvidence>>();
        for (const row of added) {
          let terms = next.get(row.toolId);
          if (terms === undefined) {
            next.set(row.toolId, (terms = new Map(tools.get(row.toolId))));
          }
          terms.set(row.term, addEvidence(terms.get(row.term), row, halfLifeMs));
        }
        if (maxTermsPerTool === undefined) {
          for (const [toolId, terms] of next) tools.set(toolId, terms);
          resolve(undefined);
          return;
        }
        const bounded = [...next].map(([toolId, terms]) => {
          const { kept } = keepHeaviest([...terms.values()], maxTermsPerTool, halfLifeMs);
          return [toolId, kept] as const;
        });
        for (const [toolId, kept] of bounded) {
          tools.set(toolId, new Map(kept.map((row) => [row.term, row])));
        }
        resolve(bounded.flatMap(([, kept]) => kept.map((row) => ({ ...row }))));
      }),
    remove: (removed) =>
      new Promise<void>((resolve) => {
        checkEvidenceKeys(removed);
        for (const row of removed) tools.get(row.toolId)?.delete(row.term);
        resolve();
      }),
    forget: (toolId) => {
      if (toolId === undefined) tools.clear();
      else tools.delete(toolId);
      listeners.tell({ toolId });
      return Promise.resolve();
    },
    onForget: (listener) => listeners.add(listener),
  };
}
