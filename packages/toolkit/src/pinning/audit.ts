import { countOr, NAMESPACE_PATTERN, ToolError } from '@toolplane/toolmodel';
import { FINGERPRINT_PATTERN } from './fingerprint.js';
import type { AcceptTarget, AuditKind, AuditRecord, PinChange } from './pin-types.js';

/** Every {@link AuditKind}, for stores and readers that check what they load. */
export const AUDIT_KINDS: readonly AuditKind[] = [
  'approval.asked',
  'approval.granted',
  'approval.refused',
  'pin.first',
  'pin.changed',
  'pin.accepted',
  'pin.reverted',
];

/** The most audit records one {@link PinStore.listAudit} answers. */
export const MAX_AUDIT_LIMIT = 10_000;
const DEFAULT_AUDIT_LIMIT = 100;
// A record's detail is metadata, never a payload: a call's arguments go in as a digest.
const MAX_DETAIL_CHARS = 16_384;

/**
 * Checks an audit record before it is stored, and answers its detail as JSON (or `null`).
 *
 * @throws {ToolError} `invalid_argument` naming the field that is wrong.
 */
export function checkAuditRecord(record: AuditRecord): string | null {
  if (!AUDIT_KINDS.includes(record.kind)) {
    throw new ToolError(
      'invalid_argument',
      `audit kind ${JSON.stringify(record.kind)} is not one of ${AUDIT_KINDS.join(', ')}`,
    );
  }
  if (!Number.isSafeInteger(record.at) || record.at < 0) {
    throw new ToolError('invalid_argument', 'an audit record needs `at` in epoch milliseconds');
  }
  if (typeof record.toolId !== 'string' || record.toolId.length === 0) {
    throw new ToolError('invalid_argument', 'an audit record needs the `toolId` it is about');
  }
  if (record.detail === undefined) return null;
  let detail: string;
  try {
    detail = JSON.stringify(record.detail);
  } catch (error) {
    throw new ToolError('invalid_argument', 'an audit record`s detail must be plain JSON', {
      cause: error,
    });
  }
  if (detail.length > MAX_DETAIL_CHARS) {
    throw new ToolError(
      'invalid_argument',
      `an audit record's detail is ${String(detail.length)} characters of JSON, over ${String(MAX_DETAIL_CHARS)}; store a digest of large values`,
    );
  }
  return detail;
}

/**
 * The limit a {@link PinStore.listAudit} call asked for, or the default.
 *
 * @throws {ToolError} `invalid_argument` for a limit that is not an integer from 1 to 10,000.
 */
export function auditLimit(limit: number | undefined): number {
  return countOr(limit, DEFAULT_AUDIT_LIMIT, 'limit', { max: MAX_AUDIT_LIMIT });
}

/**
 * Reads `namespace` or `namespace:tool`, as `toolplane tools accept` takes it.
 *
 * @throws {ToolError} `invalid_argument` for anything else.
 */
export function parseAcceptTarget(text: string): AcceptTarget {
  const at = text.indexOf(':');
  const namespace = at < 0 ? text : text.slice(0, at);
  const tool = at < 0 ? undefined : text.slice(at + 1);
  if (!NAMESPACE_PATTERN.test(namespace) || (tool !== undefined && !/^[^\s:]{1,128}$/.test(tool))) {
    throw new ToolError(
      'invalid_argument',
      `${JSON.stringify(text)} is not a namespace or namespace:tool (e.g. github or github:create_issue)`,
    );
  }
  return tool === undefined ? { namespace } : { namespace, tool };
}

/**
 * Checks what {@link PinStore.accept} is asked to accept before it reads anything: a fingerprint
 * must be `sha256:` and 64 hex digits, and name one tool's definition.
 *
 * @throws {ToolError} `invalid_argument` saying which.
 */
export function checkAcceptTarget(target: AcceptTarget): void {
  if (target.fingerprint === undefined) return;
  if (typeof target.fingerprint !== 'string' || !FINGERPRINT_PATTERN.test(target.fingerprint)) {
    throw new ToolError(
      'invalid_argument',
      `${JSON.stringify(target.fingerprint)} is not a fingerprint; copy the one \`toolplane tools changes\` shows (sha256: and 64 hex digits)`,
    );
  }
  if (target.tool === undefined) {
    throw new ToolError(
      'invalid_argument',
      `a fingerprint names one tool's definition; accept ${target.namespace}:<tool> with it, not the whole namespace`,
    );
  }
}

/**
 * Refuses an acceptance whose expected fingerprint (see {@link AcceptTarget.fingerprint}) is not
 * what the pending changes about to be accepted offer now; a store calls it inside the
 * transaction that accepts `changes`, so refusing accepts nothing.
 *
 * @throws {ToolError} `conflict` naming the definition offered now and how to review it.
 */
export function checkAcceptedFingerprint(
  target: AcceptTarget,
  changes: readonly PinChange[],
): void {
  const expected = target.fingerprint;
  if (expected === undefined) return;
  const moved = changes.find((change) => change.current.fingerprint !== expected);
  if (moved === undefined) return;
  throw new ToolError(
    'conflict',
    `tool "${moved.namespace}:${moved.tool}" changed again since it was reviewed: it now offers ${moved.current.fingerprint}, not ${expected}, so nothing was accepted; review it again with \`toolplane tools changes ${moved.namespace}\``,
    { toolId: `${moved.namespace}:${moved.tool}` },
  );
}
