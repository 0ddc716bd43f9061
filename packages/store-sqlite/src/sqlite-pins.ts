import {
  acceptedRecord,
  auditFromRow,
  auditLimit,
  changeFromRow,
  checkAcceptedFingerprint,
  checkAcceptTarget,
  checkAuditRecord,
  pinFromRow,
  type AcceptTarget,
  type AuditRecord,
  type AuditRow,
  type Pin,
  type PinChange,
  type PinChangeRow,
  type PinEvent,
  type PinRow,
  type PinStore,
  type StoreCallOptions,
} from '@toolplane/toolkit';
import { optionKeys } from '@toolplane/toolmodel';
import { openSearchDb } from './sqlite-evidence.js';
import { runStoreCall, watchDataVersion } from './store-calls.js';
import { checkSqliteOptions } from './sqlite-options.js';

/** Options for {@link createSqlitePinStore}. */
export interface SqlitePinStoreOptions {
  /** Database file, which may be shared with the other SQLite stores'. Default `.toolplane/toolplane.db`. */
  readonly path?: string;
  /** How long a write waits for another writer's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /**
   * How often, while someone watches, the file is checked for other processes' writes (an
   * acceptance by `toolplane tools accept`). Default 250 ms.
   */
  readonly pollIntervalMs?: number;
  /**
   * Open the file read-only even when this user could write it (default false: read-only only
   * when it cannot). Pins are then read, and every write refused.
   */
  readonly readOnly?: boolean;
}

/** A {@link PinStore} in a SQLite file, made by {@link createSqlitePinStore}. */
export interface SqlitePinStore extends PinStore {
  /**
   * `undefined` when the file was opened for writing; else why it is read-only, the message of
   * the `store_error` every write (a pin, a change, an acceptance, an audit record) is refused
   * with.
   */
  readonly readOnly: string | undefined;
}

// Tables of their own, created when missing: pins, the changes waiting to be accepted, and the
// audit log (which approvals share).
const SCHEMA = `
CREATE TABLE IF NOT EXISTS tool_pins (
  namespace TEXT NOT NULL,
  tool TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  definition TEXT NOT NULL,
  pinned_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, tool)
);
CREATE TABLE IF NOT EXISTS tool_pin_changes (
  namespace TEXT NOT NULL,
  tool TEXT NOT NULL,
  pinned_fingerprint TEXT NOT NULL,
  pinned_definition TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  definition TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, tool)
);
CREATE TABLE IF NOT EXISTS audit_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  tool_id TEXT NOT NULL,
  who TEXT,
  fingerprint TEXT,
  previous TEXT,
  detail TEXT
);
CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at);`;

const KNOWN = optionKeys<SqlitePinStoreOptions>({
  path: true,
  busyTimeoutMs: true,
  pollIntervalMs: true,
  readOnly: true,
});

/**
 * Keeps tool pins, pending changes and the audit log (see `PinStore` in @toolplane/toolkit) in
 * a SQLite file, so pins outlive restarts and `toolplane tools accept` in another process
 * reaches a running gateway: while watched, the file is polled (`PRAGMA data_version`, a read
 * of one page) every `pollIntervalMs` and other processes' writes are reported. Each write and
 * its audit record are one transaction.
 *
 * @throws {ToolError} `store_error` when the file cannot be opened; its methods reject with
 * `store_error` when SQLite fails, `invalid_argument` for a bad audit record or limit, and
 * `cancelled` when a call's signal is aborted.
 */
export function createSqlitePinStore(options: SqlitePinStoreOptions = {}): SqlitePinStore {
  checkSqliteOptions(options, KNOWN, 'createSqlitePinStore');
  const file = openSearchDb(options, SCHEMA, 'pin store');
  const { db } = file;
  const sql = {
    pins: db.prepare<[], PinRow>('SELECT * FROM tool_pins ORDER BY namespace, tool'),
    pinsIn: db.prepare<[string], PinRow>(
      'SELECT * FROM tool_pins WHERE namespace = ? ORDER BY tool',
    ),
    pin: db.prepare<[string, string], PinRow>(
      'SELECT * FROM tool_pins WHERE namespace = ? AND tool = ?',
    ),
    insertPin: db.prepare<[string, string, string, string, number]>(
      `INSERT INTO tool_pins (namespace, tool, fingerprint, definition, pinned_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (namespace, tool) DO NOTHING`,
    ),
    replacePin: db.prepare<[string, string, string, string, number]>(
      `INSERT OR REPLACE INTO tool_pins (namespace, tool, fingerprint, definition, pinned_at)
       VALUES (?, ?, ?, ?, ?)`,
    ),
    changes: db.prepare<[], PinChangeRow>(
      'SELECT * FROM tool_pin_changes ORDER BY namespace, tool',
    ),
    changesIn: db.prepare<[string], PinChangeRow>(
      'SELECT * FROM tool_pin_changes WHERE namespace = ? ORDER BY tool',
    ),
    changeFingerprint: db.prepare<[string, string], { fingerprint: string }>(
      'SELECT fingerprint FROM tool_pin_changes WHERE namespace = ? AND tool = ?',
    ),
    putChange: db.prepare<[string, string, string, string, string, string, number]>(
      `INSERT OR REPLACE INTO tool_pin_changes (namespace, tool, pinned_fingerprint,
         pinned_definition, fingerprint, definition, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    dropChange: db.prepare<[string, string]>(
      'DELETE FROM tool_pin_changes WHERE namespace = ? AND tool = ?',
    ),
    clearChange: db.prepare<[string, string, string, string]>(
      `DELETE FROM tool_pin_changes WHERE namespace = ? AND tool = ? AND pinned_fingerprint = ?
         AND fingerprint = ?`,
    ),
    audit: db.prepare<
      [string, number, string, string | null, string | null, string | null, string | null]
    >(
      `INSERT INTO audit_log (kind, at, tool_id, who, fingerprint, previous, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    listAudit: db.prepare<[number, number], AuditRow>(
      `SELECT * FROM (SELECT * FROM audit_log WHERE at >= ? ORDER BY seq DESC LIMIT ?)
       ORDER BY seq`,
    ),
    snapshot: db.prepare<[], { key: string; state: string }>(
      `SELECT namespace || ':' || tool AS key, 'p' || fingerprint AS state FROM tool_pins
       UNION ALL SELECT namespace || ':' || tool, 'c' || fingerprint FROM tool_pin_changes`,
    ),
  };

  const appendAudit = (record: AuditRecord, detail: string | null): void => {
    sql.audit.run(
      record.kind,
      record.at,
      record.toolId,
      record.who ?? null,
      record.fingerprint ?? null,
      record.previous ?? null,
      detail,
    );
  };
  // Each write runs as `.immediate`: a transaction that reads before it writes takes the write lock
  // at BEGIN, so another process's writer makes it wait (busyTimeoutMs) instead of failing with
  // SQLITE_BUSY when it turns from reading to writing.
  const pinFirst = db.transaction((pin: Pin, record: AuditRecord, detail: string | null) => {
    const inserted = sql.insertPin.run(
      pin.namespace,
      pin.tool,
      pin.fingerprint,
      pin.definition,
      pin.pinnedAt,
    ).changes;
    if (inserted > 0) appendAudit(record, detail);
    return pinFromRow(sql.pin.get(pin.namespace, pin.tool) as PinRow);
  });
  const recordChange = db.transaction(
    (change: PinChange, record: AuditRecord, detail: string | null) => {
      const known = sql.changeFingerprint.get(change.namespace, change.tool);
      if (known?.fingerprint === change.current.fingerprint) return false;
      sql.putChange.run(
        change.namespace,
        change.tool,
        change.pinned.fingerprint,
        change.pinned.definition,
        change.current.fingerprint,
        change.current.definition,
        change.seenAt,
      );
      appendAudit(record, detail);
      return true;
    },
  );
  const clearChange = db.transaction(
    (change: PinChange, record: AuditRecord, detail: string | null) => {
      const cleared = sql.clearChange.run(
        change.namespace,
        change.tool,
        change.pinned.fingerprint,
        change.current.fingerprint,
      ).changes;
      if (cleared === 0) return false;
      appendAudit(record, detail);
      return true;
    },
  );
  const accept = db.transaction((target: AcceptTarget, who: string) => {
    const accepted = sql.changesIn
      .all(target.namespace)
      .map(changeFromRow)
      .filter((change) => target.tool === undefined || change.tool === target.tool);
    checkAcceptedFingerprint(target, accepted);
    const now = Date.now();
    for (const change of accepted) {
      sql.replacePin.run(
        change.namespace,
        change.tool,
        change.current.fingerprint,
        change.current.definition,
        now,
      );
      sql.dropChange.run(change.namespace, change.tool);
      appendAudit(acceptedRecord(change, who, now), null);
    }
    return accepted;
  });

  const listeners = new Set<(event: PinEvent) => void>();
  let closed = false;
  let known = new Map<string, string>();
  const notify = (events: readonly PinEvent[]): void => {
    for (const event of events) for (const listener of [...listeners]) listener(event);
  };
  const readSnapshot = (): Map<string, string> => {
    const next = new Map<string, string>();
    for (const row of sql.snapshot.all()) next.set(row.key, (next.get(row.key) ?? '') + row.state);
    return next;
  };
  const watch = watchDataVersion(db, {
    intervalMs: options.pollIntervalMs ?? 250,
    start: () => {
      known = readSnapshot();
    },
    changed: () => {
      const next = readSnapshot();
      const events: PinEvent[] = [];
      for (const key of new Set([...known.keys(), ...next.keys()])) {
        if (known.get(key) === next.get(key)) continue;
        const at = key.indexOf(':');
        events.push({ namespace: key.slice(0, at), tool: key.slice(at + 1) });
      }
      known = next;
      notify(events);
    },
    what: 'watching the SQLite pin store for changes failed',
  });
  // Our own writes are reported as they commit (data_version only moves for other connections').
  const own = (events: readonly PinEvent[]): void => {
    if (watch.watching) known = readSnapshot();
    notify(events);
  };

  const run = <T>(what: string, callOptions: StoreCallOptions | undefined, body: () => T) =>
    runStoreCall(
      callOptions,
      {
        closed: () => (closed ? 'the SQLite pin store is closed' : undefined),
        failure: `cannot ${what}`,
      },
      body,
    );
  const write = <T>(what: string, callOptions: StoreCallOptions | undefined, body: () => T) =>
    run(what, callOptions, () => {
      file.writable();
      return body();
    });

  return {
    readOnly: file.readOnly,
    listPins: (namespace, callOptions) =>
      run('list tool pins', callOptions, () =>
        (namespace === undefined ? sql.pins.all() : sql.pinsIn.all(namespace)).map(pinFromRow),
      ),
    pinFirst: (pin, record, callOptions) =>
      write('pin a tool', callOptions, () => {
        const stored = pinFirst.immediate(pin, record, checkAuditRecord(record));
        own([pin]);
        return stored;
      }),
    recordChange: (change, record, callOptions) =>
      write('record a tool change', callOptions, () => {
        const recorded = recordChange.immediate(change, record, checkAuditRecord(record));
        if (recorded) own([change]);
        return recorded;
      }),
    clearChange: (change, record, callOptions) =>
      write('drop a reverted tool change', callOptions, () => {
        const cleared = clearChange.immediate(change, record, checkAuditRecord(record));
        if (cleared) own([change]);
        return cleared;
      }),
    listChanges: (namespace, callOptions) =>
      run('list tool changes', callOptions, () =>
        (namespace === undefined ? sql.changes.all() : sql.changesIn.all(namespace)).map(
          changeFromRow,
        ),
      ),
    accept: (target, who, callOptions) =>
      write('accept tool changes', callOptions, () => {
        checkAcceptTarget(target);
        const accepted = accept.immediate(target, who);
        if (accepted.length > 0) own(accepted);
        return accepted;
      }),
    appendAudit: (record, callOptions) =>
      write('append an audit record', callOptions, () => {
        appendAudit(record, checkAuditRecord(record));
      }),
    listAudit: (listOptions = {}) =>
      run('list audit records', listOptions, () =>
        sql.listAudit.all(listOptions.since ?? 0, auditLimit(listOptions.limit)).map(auditFromRow),
      ),
    watch(listener) {
      listeners.add(listener);
      const unwatch = watch.add();
      return () => {
        listeners.delete(listener);
        unwatch();
      };
    },
    close() {
      if (!closed) {
        closed = true;
        watch.close();
        listeners.clear();
        db.close();
      }
      return Promise.resolve();
    },
  };
}
