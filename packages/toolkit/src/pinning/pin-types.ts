import type { StoreCallOptions } from '../store.js';

/** The pinned definition of one tool of one upstream server. */
export interface Pin {
  /** The server's namespace. */
  readonly namespace: string;
  /** The tool's name on that server. */
  readonly tool: string;
  /** See {@link fingerprintTool}. */
  readonly fingerprint: string;
  /** The pinned definition as canonical JSON. */
  readonly definition: string;
  /** When it was pinned or last accepted, in epoch milliseconds. */
  readonly pinnedAt: number;
}

/** A tool whose server now offers a definition other than its pin, waiting to be accepted. */
export interface PinChange {
  readonly namespace: string;
  readonly tool: string;
  /** What was pinned. */
  readonly pinned: Pick<Pin, 'fingerprint' | 'definition'>;
  /** What the server offers now. */
  readonly current: Pick<Pin, 'fingerprint' | 'definition'>;
  /** When the server was first seen offering `current`, in epoch milliseconds. */
  readonly seenAt: number;
}

/**
 * What an audit record is about: an approval asked for, granted or refused (the approval
 * middleware's decisions), a tool pinned on first sight, a pinned tool seen changed, a change
 * accepted, or a change dropped because its server offers the pinned definition again
 * (`pin.reverted`).
 */
export type AuditKind =
  | 'approval.asked'
  | 'approval.granted'
  | 'approval.refused'
  | 'pin.first'
  | 'pin.changed'
  | 'pin.accepted'
  | 'pin.reverted';

/** One audit record: who did what to which tool, when, with which definition. */
export interface AuditRecord {
  readonly kind: AuditKind;
  /** When, in epoch milliseconds. */
  readonly at: number;
  /** The canonical tool ID, `namespace:tool`. */
  readonly toolId: string;
  /** Who: a session or caller for approvals, `gateway` or a CLI user for pins. */
  readonly who?: string;
  /**
   * The tool definition's fingerprint the record is about (the new one for a change, the pinned
   * one served again for `pin.reverted`).
   */
  readonly fingerprint?: string;
  /**
   * The fingerprint it replaced, for `pin.changed` and `pin.accepted`; for `pin.reverted`, the
   * changed definition's, whose pending change was dropped.
   */
  readonly previous?: string;
  /** Anything else worth keeping: a policy's name, a reason, an arguments digest. Plain JSON. */
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** An {@link AuditRecord} as stored, with its place in the log. */
export interface StoredAuditRecord extends AuditRecord {
  /** Rises with every record appended to the store. */
  readonly seq: number;
}

/** Options of {@link PinStore.listAudit}. */
export interface ListAuditOptions extends StoreCallOptions {
  /** Only records at or after this time (epoch milliseconds). */
  readonly since?: number;
  /** At most this many, the newest; default 100, at most 10,000. */
  readonly limit?: number;
}

/** What {@link PinStore.watch} listeners hear: the pins or changes of a tool were written. */
export interface PinEvent {
  readonly namespace: string;
  readonly tool: string;
}

/** Which tools {@link PinStore.accept} accepts: one tool, or every change of a namespace. */
export interface AcceptTarget {
  readonly namespace: string;
  readonly tool?: string;
  /**
   * With `tool`: accept only if the pending change still offers this definition (its
   * `current.fingerprint`, as it was reviewed), so a change made after the review is not
   * accepted unseen.
   */
  readonly fingerprint?: string;
}

/**
 * Where tool pins, pending changes and the audit log live: in memory ({@link createMemoryPinStore}),
 * a SQLite file or PostgreSQL (a fleet shares pins). Every write that touches more than one
 * record (a pin and its audit record, an acceptance) is one transaction: nothing is stored half.
 */
export interface PinStore {
  /** Every pin, or the pins of one namespace. */
  listPins(namespace?: string, options?: StoreCallOptions): Promise<Pin[]>;
  /**
   * Pins `pin` unless its tool already has a pin, with a `pin.first` audit record; answers the
   * pin now stored (an existing one wins, so two instances seeing a tool at once agree).
   */
  pinFirst(pin: Pin, audit: AuditRecord, options?: StoreCallOptions): Promise<Pin>;
  /**
   * Records that a pinned tool is now offered as `change.current`, with a `pin.changed` audit
   * record; a change already recorded with the same fingerprint is left as it is (answers false).
   */
  recordChange(change: PinChange, audit: AuditRecord, options?: StoreCallOptions): Promise<boolean>;
  /**
   * Drops the recorded change of `change`'s tool, with a `pin.reverted` audit record, when its
   * server offers the pinned definition again: so it is neither listed nor accepted any more.
   * Only a change still recorded as `change` (the same pinned and current fingerprints) is
   * dropped; one accepted, dropped or replaced meanwhile is left as it is (answers false).
   *
   * Optional only so that stores written before it still compile: without it a reverted change
   * stays pending until it is accepted. `describePinStoreContract` requires it.
   */
  clearChange?(change: PinChange, audit: AuditRecord, options?: StoreCallOptions): Promise<boolean>;
  /** The changes waiting to be accepted, of every namespace or one. */
  listChanges(namespace?: string, options?: StoreCallOptions): Promise<PinChange[]>;
  /**
   * Accepts the recorded changes of `target`: each one's current definition becomes its pin, and
   * gets a `pin.accepted` audit record by `who`. Answers the changes accepted. A store must honour
   * `target.fingerprint` in the same transaction (see {@link checkAcceptTarget}).
   *
   * @throws {ToolError} `conflict`, accepting nothing, when `target.fingerprint` is not the
   * pending change's current one; `invalid_argument` for a fingerprint that is not
   * `sha256:` and 64 hex digits, or one given without a tool.
   */
  accept(target: AcceptTarget, who: string, options?: StoreCallOptions): Promise<PinChange[]>;
  /** Appends one audit record (the approval middleware's `onDecision` hook lands here). */
  appendAudit(record: AuditRecord, options?: StoreCallOptions): Promise<void>;
  /** Audit records, oldest first. */
  listAudit(options?: ListAuditOptions): Promise<StoredAuditRecord[]>;
  /**
   * Calls `listener` for each tool whose pin or change another writer wrote (and this instance's
   * own writes): how a running gateway hears an acceptance made by `toolplane tools accept`.
   * Returns the unsubscribe function.
   */
  watch(listener: (event: PinEvent) => void): () => void;
  /** Releases what the store holds (a pool it created, a timer). */
  close(): Promise<void>;
}
