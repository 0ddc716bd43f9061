// How every SQLite store of this package opens its file: read-write in WAL mode when this user
// can write it, read-only when not (a shared store owned by someone else, a 0444 file, a
// read-only mount), so reads still work and each write is refused with one clear reason.
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ToolError } from '@toolplane/toolmodel';
import Database from 'better-sqlite3';
import { asStoreError } from './store-calls.js';

/** What {@link openSqliteFile} is told. @internal */
export interface SqliteFileOptions {
  readonly path: string;
  /** Open read-only even when the file could be written. */
  readonly readOnly?: boolean | undefined;
  readonly busyTimeoutMs?: number | undefined;
  /** Set on a file opened for writing; SQLite's default (NORMAL in WAL mode) when absent. */
  readonly synchronous?: 'full' | 'normal' | undefined;
  /** What is opened, for the error of a failed open ("store", "pin store"). */
  readonly what: string;
}

/** A SQLite file opened by {@link openSqliteFile}. @internal */
export interface SqliteFile {
  readonly db: Database.Database;
  /**
   * `undefined` when the file was opened for writing; else why it is read-only, as the message
   * of the `store_error` every write is refused with.
   */
  readonly readOnly: string | undefined;
  /** @throws {ToolError} `store_error` ({@link readOnly}) when the file is read-only. */
  writable(): void;
}

// What SQLite says when it cannot open a file, or its -wal and -shm files, for writing.
const CANNOT_WRITE = /^SQLITE_(READONLY|CANTOPEN|PERM)/;

/**
 * Opens a store's SQLite file: read-write in WAL mode (creating its directory) when it can,
 * read-only when `readOnly` is set or this user cannot write an existing file. SQLite reads a
 * WAL-mode file read-only only beside -wal and -shm files it can open or create; when it can do
 * neither (a read-only directory, and no writer has the file open, so there are no such files),
 * the file is read once into memory: with no -wal file its content is the whole database, and a
 * copy cannot change under a read as an `immutable` file would.
 *
 * @throws {ToolError} `store_error` when it cannot be opened either way; `invalid_argument` for
 * `readOnly` on an in-memory database.
 * @internal
 */
export function openSqliteFile(options: SqliteFileOptions): SqliteFile {
  const { path } = options;
  const timeout = options.busyTimeoutMs ?? 5000;
  const inMemory = path === ':memory:' || path === '';
  if (options.readOnly === true && inMemory) {
    throw new ToolError('invalid_argument', 'readOnly needs a database file, not an in-memory one');
  }
  let why = options.readOnly === true ? 'it was opened with readOnly: true' : undefined;
  if (why === undefined && !inMemory && isFile(path)) why = cannotWrite(path);
  if (why === undefined) {
    let db: Database.Database | undefined;
    try {
      if (!inMemory) mkdirSync(dirname(path), { recursive: true });
      db = new Database(path, { timeout });
      db.pragma('journal_mode = WAL');
      if (options.synchronous !== undefined) {
        db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      }
      return { db, readOnly: undefined, writable: () => undefined };
    } catch (error) {
      db?.close();
      const code = (error as { code?: unknown }).code;
      if (inMemory || !isFile(path) || typeof code !== 'string' || !CANNOT_WRITE.test(code)) {
        throw asStoreError(
          error,
          `cannot open the SQLite ${options.what} at ${JSON.stringify(path)}`,
        );
      }
      why =
        code === 'SQLITE_READONLY_DIRECTORY'
          ? `this user may not create files in its directory, ${code}`
          : `SQLite cannot write it: ${(error as Error).message}, ${code}`;
    }
  }
  let opened: { db: Database.Database; snapshot: boolean };
  try {
    opened = openReadOnly(path, timeout);
  } catch (error) {
    throw asStoreError(
      error,
      `cannot open the SQLite ${options.what} at ${JSON.stringify(path)} read-only (${why})`,
    );
  }
  const readOnly = `the SQLite store at ${JSON.stringify(path)} is read-only (${why})${
    opened.snapshot
      ? `, and read as it was when opened (SQLite cannot create its -wal and -shm files in ${JSON.stringify(dirname(path))}, so later changes are not seen)`
      : ''
  }: it can be read, not written${
    options.readOnly === true ? '' : '; to save, use a store file this user may write'
  }`;
  return {
    db: opened.db,
    readOnly,
    writable: () => {
      throw new ToolError('store_error', readOnly);
    },
  };
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * Why this user cannot write `path`, or `undefined` when it can open it for writing (which changes
 * nothing): asked of the file itself, with this process's effective user, as SQLite will be.
 */
function cannotWrite(path: string): string | undefined {
  try {
    closeSync(openSync(path, 'r+'));
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
    if (code === 'EROFS') return 'it is on a read-only file system';
    return `this user may not write the file, ${code}`;
  }
}

/** Whether `path`'s -wal file holds anything: a file with none is all in the main file. */
function walHasFrames(path: string): boolean {
  return (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0;
}

function openReadOnly(path: string, timeout: number): { db: Database.Database; snapshot: boolean } {
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout });
  try {
    // The first read opens (or fails to open) the -wal and -shm files.
    db.pragma('user_version');
    return { db, snapshot: false };
  } catch (error) {
    db.close();
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !CANNOT_WRITE.test(code) || walHasFrames(path)) throw error;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      throw error;
    }
    // A writer that started while the file was read may have changed it: not a copy to trust.
    if (walHasFrames(path)) {
      throw new ToolError(
        'store_error',
        'another process started writing it while it was read; try again',
      );
    }
    // Header bytes 18 and 19 are 2 in WAL mode, which an in-memory database cannot be in; 1 is
    // rollback mode, in which the same pages read the same.
    if (bytes.length >= 20) {
      bytes[18] = 1;
      bytes[19] = 1;
    }
    return { db: new Database(bytes, { readonly: true, timeout }), snapshot: true };
  }
}

/**
 * Makes the tables of `schema` (`;`-separated statements) that a read-only file lacks as empty
 * TEMP tables, so that reading them finds nothing instead of failing (a store file written
 * before they existed). Tables the file has are left alone, and no index is made.
 * @internal
 */
export function emptyStandIns(db: Database.Database, schema: string): void {
  const has = db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM main.sqlite_schema WHERE type = 'table' AND name = ?",
  );
  for (const statement of schema.split(';')) {
    const table = /CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/i.exec(statement)?.[1];
    if (table === undefined || (has.get(table)?.n ?? 0) > 0) continue;
    db.exec(statement.replace(/CREATE\s+TABLE/i, 'CREATE TEMP TABLE'));
  }
}
