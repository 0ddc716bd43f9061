// The rows of the SQL pin stores (SQLite, PostgreSQL) share their tables' columns, so the way a
// row becomes a pin, a change or an audit record lives here once. PostgreSQL's driver hands
// BIGINT columns over as strings, and a JSON column as parsed JSON; SQLite hands over numbers and
// the JSON text: both are read.
import type { AuditRecord, Pin, PinChange, StoredAuditRecord } from './pin-types.js';

/** A BIGINT column as a driver returns it: a number (SQLite) or a decimal string (pg). */
type BigIntColumn = number | string;

/** A row of the `tool_pins` table. */
export interface PinRow {
  readonly namespace: string;
  readonly tool: string;
  readonly fingerprint: string;
  readonly definition: string;
  readonly pinned_at: BigIntColumn;
}

/** A row of the `tool_pin_changes` table. */
export interface PinChangeRow {
  readonly namespace: string;
  readonly tool: string;
  readonly pinned_fingerprint: string;
  readonly pinned_definition: string;
  readonly fingerprint: string;
  readonly definition: string;
  readonly seen_at: BigIntColumn;
}

/** A row of the `audit_log` table; `detail` is JSON text, or already parsed. */
export interface AuditRow {
  readonly seq: BigIntColumn;
  readonly kind: AuditRecord['kind'];
  readonly at: BigIntColumn;
  readonly tool_id: string;
  readonly who: string | null;
  readonly fingerprint: string | null;
  readonly previous: string | null;
  readonly detail: string | Record<string, unknown> | null;
}

/** The {@link Pin} a `tool_pins` row holds. */
export function pinFromRow(row: PinRow): Pin {
  return {
    namespace: row.namespace,
    tool: row.tool,
    fingerprint: row.fingerprint,
    definition: row.definition,
    pinnedAt: Number(row.pinned_at),
  };
}

/** The {@link PinChange} a `tool_pin_changes` row holds. */
export function changeFromRow(row: PinChangeRow): PinChange {
  return {
    namespace: row.namespace,
    tool: row.tool,
    pinned: { fingerprint: row.pinned_fingerprint, definition: row.pinned_definition },
    current: { fingerprint: row.fingerprint, definition: row.definition },
    seenAt: Number(row.seen_at),
  };
}

/** The {@link StoredAuditRecord} an `audit_log` row holds; absent columns are left out. */
export function auditFromRow(row: AuditRow): StoredAuditRecord {
  const detail =
    typeof row.detail === 'string'
      ? (JSON.parse(row.detail) as Record<string, unknown>)
      : row.detail;
  return {
    seq: Number(row.seq),
    kind: row.kind,
    at: Number(row.at),
    toolId: row.tool_id,
    ...(row.who === null ? {} : { who: row.who }),
    ...(row.fingerprint === null ? {} : { fingerprint: row.fingerprint }),
    ...(row.previous === null ? {} : { previous: row.previous }),
    ...(detail === null ? {} : { detail }),
  };
}

/** The `pin.accepted` audit record of `change`, accepted by `who` at `at`. */
export function acceptedRecord(change: PinChange, who: string, at: number): AuditRecord {
  return {
    kind: 'pin.accepted',
    at,
    toolId: `${change.namespace}:${change.tool}`,
    who,
    fingerprint: change.current.fingerprint,
    previous: change.pinned.fingerprint,
  };
}
