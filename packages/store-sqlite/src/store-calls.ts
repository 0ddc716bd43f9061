// What the SQLite stores (user store, pins) share around their calls: one way to run a call and
// report its failure, and one watcher of the file for other processes' writes.
import type { StoreCallOptions } from '@toolplane/toolkit';
import { ToolError } from '@toolplane/toolmodel';
import type Database from 'better-sqlite3';

/**
 * What to do about a SQLite failure, by its result code (better-sqlite3's `code`): SQLite's own
 * messages ("attempt to write a readonly database", "database is locked") say what happened but
 * not where to look.
 */
const HINTS: readonly (readonly [RegExp, string])[] = [
  [
    /^SQLITE_BUSY/,
    'another process held the write lock longer than busyTimeoutMs; try again, or raise busyTimeoutMs',
  ],
  [
    /^SQLITE_(READONLY|CANTOPEN|PERM)/,
    'check that this user may write the file and its directory: SQLite in WAL mode keeps -wal and -shm files beside it',
  ],
  [/^SQLITE_FULL/, 'the disk (or a size limit on the file) is full; free space and try again'],
  [/^SQLITE_NOTADB/, 'the file is not a SQLite database; point the store at another path'],
  [
    /^SQLITE_CORRUPT/,
    "the file is damaged; restore it from a backup, or save what is left with the sqlite3 shell's .recover",
  ],
];

/** A SQLite failure as a `store_error` naming what failed; a {@link ToolError} passes through. */
export function asStoreError(error: unknown, what: string): ToolError {
  if (ToolError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const hint =
    typeof code === 'string' ? HINTS.find(([pattern]) => pattern.test(code))?.[1] : undefined;
  return new ToolError(
    'store_error',
    `${what}: ${reason}${hint === undefined ? '' : ` (${hint})`}`,
    {
      cause: error,
    },
  );
}

/**
 * Runs one store call: `body` runs synchronously inside a promise executor, so a throw becomes a
 * rejection, after the checks every call makes.
 *
 * @throws {ToolError} `store_error` (as a rejection) with `closed`'s message once the store is
 * closed, or `failure` when SQLite fails; `cancelled` when the call's signal has aborted.
 */
export function runStoreCall<T>(
  options: StoreCallOptions | undefined,
  checks: { readonly closed: () => string | undefined; readonly failure: string },
  body: () => T,
): Promise<T> {
  return new Promise<T>((resolve) => {
    const closed = checks.closed();
    if (closed !== undefined) throw new ToolError('store_error', closed);
    if (options?.signal?.aborted === true) {
      throw new ToolError('cancelled', 'the operation was cancelled', {
        cause: options.signal.reason,
      });
    }
    try {
      resolve(body());
    } catch (error) {
      throw asStoreError(error, checks.failure);
    }
  });
}

/** What {@link watchDataVersion} is told and does. */
export interface DataVersionWatchOptions {
  /** How often the file is checked while watched, in milliseconds. */
  readonly intervalMs: number;
  /** Called as watching starts (the first watcher): where reading what changed starts from. */
  readonly start: () => void;
  /** Called when another connection wrote since the last check. */
  readonly changed: () => void;
  /** What is watched, for the `store_error` of a failed check. */
  readonly what: string;
}

/** A watch started by {@link watchDataVersion}. */
export interface DataVersionWatch {
  /** Whether someone watches now. */
  readonly watching: boolean;
  /** Adds a watcher (the first starts the checks); returns its removal. */
  add(): () => void;
  /** Stops checking for good. */
  close(): void;
}

/** How a failed check is told: as a store change listener's failure is (the toolkit's emitter). */
function reportWatchFailure(error: unknown): void {
  console.error(error);
}

/**
 * Watches a SQLite file for other processes' writes, while someone watches: every `intervalMs`
 * it reads `PRAGMA data_version` (one page), which moves only for other connections' commits,
 * and calls `changed` when it moved. A failed check is retried on every tick and reported on
 * stderr once per run of failures, as a `store_error`. The timer never keeps a process alive on
 * its own.
 */
export function watchDataVersion(
  db: Database.Database,
  options: DataVersionWatchOptions,
): DataVersionWatch {
  let timer: NodeJS.Timeout | undefined;
  let watchers = 0;
  let closed = false;
  let version = 0;
  let failing = false;
  const read = (): number => db.pragma('data_version', { simple: true }) as number;
  const check = (): void => {
    if (closed) return;
    try {
      const now = read();
      if (now === version) return;
      options.changed();
      // Only once read: a failed read is tried again on the next tick.
      version = now;
      failing = false;
    } catch (error) {
      // Reported once per run of failures, never thrown: a timer's throw would be uncaught and
      // end the process (a gateway serving everyone) for one unreadable page of one table.
      if (failing) return;
      failing = true;
      reportWatchFailure(
        asStoreError(error, `${options.what} (tried again every ${String(options.intervalMs)} ms)`),
      );
    }
  };
  return {
    get watching() {
      return timer !== undefined;
    },
    add() {
      watchers++;
      if (timer === undefined && options.intervalMs > 0 && !closed) {
        options.start();
        version = read();
        timer = setInterval(check, options.intervalMs);
        timer.unref();
      }
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        watchers--;
        if (watchers === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
