import type { StoreCallOptions } from '../store.js';
import type { AuditRecord, PinChange, PinStore } from './pin-types.js';
import { acceptedRecord } from './pin-rows.js';

/**
 * `store`, telling `onAudit` of every audit record this process writes through it, once stored:
 * the pins first seen, the changes recorded, accepted or dropped as reverted, and what was
 * appended (approvals). A gateway writes them as audit lines of its log; records other writers
 * store are not told.
 */
export function withAuditFeed(store: PinStore, onAudit: (record: AuditRecord) => void): PinStore {
  return {
    listPins: (namespace, options) => store.listPins(namespace, options),
    listChanges: (namespace, options) => store.listChanges(namespace, options),
    listAudit: (options) => store.listAudit(options),
    watch: (listener) => store.watch(listener),
    close: () => store.close(),
    async pinFirst(pin, audit, options) {
      const stored = await store.pinFirst(pin, audit, options);
      // Another instance's pin won: its record is that instance's to tell.
      if (stored.fingerprint === pin.fingerprint && stored.pinnedAt === pin.pinnedAt) {
        onAudit(audit);
      }
      return stored;
    },
    async recordChange(change, audit, options) {
      const recorded = await store.recordChange(change, audit, options);
      if (recorded) onAudit(audit);
      return recorded;
    },
    ...(store.clearChange === undefined
      ? {}
      : {
          async clearChange(change: PinChange, audit: AuditRecord, options?: StoreCallOptions) {
            const cleared = (await store.clearChange?.(change, audit, options)) ?? false;
            if (cleared) onAudit(audit);
            return cleared;
          },
        }),
    async accept(target, who, options) {
      const accepted = await store.accept(target, who, options);
      const at = Date.now();
      for (const change of accepted) onAudit(acceptedRecord(change, who, at));
      return accepted;
    },
    async appendAudit(record, options) {
      await store.appendAudit(record, options);
      onAudit(record);
    },
  };
}
