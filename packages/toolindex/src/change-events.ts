import { ToolError } from '@toolplane/toolmodel';
import type { IndexChangeEvent, IndexChangeListener, IndexChangeType } from './index-types.js';

/** The index's version counter and its ordered, re-entrancy-safe event delivery. */
export interface ChangeEvents {
  /** Rises by one with every {@link ChangeEvents.emit}. */
  readonly version: number;
  /** Counts a change and queues its event (only when someone listens). */
  readonly emit: (
    type: IndexChangeType,
    id: string | undefined,
    namespace: string | undefined,
  ) => void;
  /** Delivers queued events in order; re-entrant calls only queue (the outer loop delivers). */
  readonly deliver: () => void;
  /** Subscribes; returns an idempotent unsubscribe function. */
  subscribe(listener: IndexChangeListener): () => void;
}

/**
 * Creates the event machinery of one index. A throwing listener is reported to
 * `onListenerError` and never stops delivery to the others.
 */
export function createChangeEvents(
  onListenerError: (error: unknown, event: IndexChangeEvent) => void,
): ChangeEvents {
  let version = 0;
  const listeners = new Set<IndexChangeListener>();
  const pending: IndexChangeEvent[] = [];
  let delivering = false;

  return {
    get version() {
      return version;
    },

    emit(type, id, namespace) {
      version++;
      // With nobody listening there is nobody to tell, now or later: skip building the event.
      if (listeners.size === 0) return;
      const event: IndexChangeEvent =
        id === undefined
          ? { type, namespace, version }
          : namespace === undefined
            ? { type, id, version }
            : { type, id, namespace, version };
      pending.push(Object.freeze(event));
    },

    deliver() {
      if (delivering || pending.length === 0) return;
      delivering = true;
      try {
        // `pending` may grow while we deliver: listeners' own changes are delivered after.
        for (let i = 0; i < pending.length; i++) {
          const event = pending[i] as IndexChangeEvent;
          for (const listener of [...listeners]) {
            if (!listeners.has(listener)) continue;
            try {
              listener(event);
            } catch (error) {
              try {
                onListenerError(error, event);
              } catch {
                // A failing error reporter must not stop delivery either.
              }
            }
          }
        }
      } finally {
        pending.length = 0;
        delivering = false;
      }
    },

    subscribe(listener) {
      if (typeof listener !== 'function') {
        throw new ToolError('invalid_argument', 'onChange takes a function');
      }
      // A wrapper gives each subscription its own identity, so subscribing one function twice
      // and unsubscribing once leaves the other subscription alone.
      const subscription: IndexChangeListener = (event) => {
        listener(event);
      };
      listeners.add(subscription);
      return () => {
        listeners.delete(subscription);
      };
    },
  };
}
