import { ToolError } from '@toolplane/toolmodel';
import type { StoreCallOptions } from '../store.js';
import {
  auditLimit,
  checkAcceptedFingerprint,
  checkAcceptTarget,
  checkAuditRecord,
} from './audit.js';
import { acceptedRecord } from './pin-rows.js';
import type {
  AuditRecord,
  Pin,
  PinChange,
  PinEvent,
  PinStore,
  StoredAuditRecord,
} from './pin-types.js';

const key = (namespace: string, tool: string): string => `${namespace}\u0000${tool}`;

function checkSignal(options: StoreCallOptions | undefined): void {
  if (options?.signal?.aborted === true) {
    throw new ToolError('cancelled', 'the operation was cancelled', {
      cause: options.signal.reason,
    });
  }
}

/**
 * A {@link PinStore} in memory: pins last as long as the process, so a restart pins afresh.
 * For tests and for one process that wants pins within its lifetime; a gateway uses the SQLite
 * or PostgreSQL one.
 */
export function createMemoryPinStore(): PinStore {
  const pins = new Map<string, Pin>();
  const changes = new Map<string, PinChange>();
  const audit: StoredAuditRecord[] = [];
  const listeners = new Set<(event: PinEvent) => void>();
  const notify = (event: PinEvent): void => {
    for (const listener of [...listeners]) listener(event);
  };
  const append = (record: AuditRecord): void => {
    const detail = checkAuditRecord(record);
    audit.push({
      ...record,
      ...(detail === null ? {} : { detail: JSON.parse(detail) as Record<string, unknown> }),
      seq: audit.length + 1,
    });
  };
  // Every method checks first and writes after, so a refused write leaves nothing behind.
  const run = <T>(options: StoreCallOptions | undefined, body: () => T): Promise<T> =>
    new Promise<T>((resolve) => {
      checkSignal(options);
      resolve(body());
    });
  const inNamespace = <T extends { namespace: string }>(items: Iterable<T>, namespace?: string) =>
    [...items].filter((item) => namespace === undefined || item.namespace === namespace);
  return {
    listPins: (namespace, options) => run(options, () => inNamespace(pins.values(), namespace)),
    pinFirst: (pin, record, options) =>
      run(options, () => {
        const existing = pins.get(key(pin.namespace, pin.tool));
        if (existing !== undefined) return existing;
        checkAuditRecord(record);
        pins.set(key(pin.namespace, pin.tool), pin);
        append(record);
        notify(pin);
        return pin;
      }),
    recordChange: (change, record, options) =>
      run(options, () => {
        const k = key(change.namespace, change.tool);
        if (changes.get(k)?.current.fingerprint === change.current.fingerprint) return false;
        checkAuditRecord(record);
        changes.set(k, change);
        append(record);
        notify(change);
        return true;
      }),
    clearChange: (change, record, options) =>
      run(options, () => {
        const k = key(change.namespace, change.tool);
        const known = changes.get(k);
        if (
          known?.current.fingerprint !== change.current.fingerprint ||
          known.pinned.fingerprint !== change.pinned.fingerprint
        ) {
          return false;
        }
        checkAuditRecord(record);
        changes.delete(k);
        append(record);
        notify(change);
        return true;
      }),
    listChanges: (namespace, options) =>
      run(options, () => inNamespace(changes.values(), namespace)),
    accept: (target, who, options) =>
      run(options, () => {
        checkAcceptTarget(target);
        const accepted = inNamespace(changes.values(), target.namespace).filter(
          (change) => target.tool === undefined || change.tool === target.tool,
        );
        checkAcceptedFingerprint(target, accepted);
        const now = Date.now();
        for (const change of accepted) {
          const k = key(change.namespace, change.tool);
          pins.set(k, {
            namespace: change.namespace,
            tool: change.tool,
            ...change.current,
            pinnedAt: now,
          });
          changes.delete(k);
          append(acceptedRecord(change, who, now));
        }
        for (const change of accepted) notify(change);
        return accepted;
      }),
    appendAudit: (record, options) =>
      run(options, () => {
        append(record);
      }),
    listAudit: (options = {}) =>
      run(options, () => {
        const limit = auditLimit(options.limit);
        const since = options.since ?? 0;
        return audit.filter((record) => record.at >= since).slice(-limit);
      }),
    watch(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close: () => {
      listeners.clear();
      return Promise.resolve();
    },
  };
}
