import type { SubscriptionTarget } from './state.js';

/** How the hub holds and lets go of an upstream subscription (counted with the 2025 sessions'). */
export interface SubscriptionHolder {
  hold(target: SubscriptionTarget): Promise<void>;
  release(target: SubscriptionTarget): Promise<void>;
}

/**
 * The resource subscriptions of 2026-07-28 clients' `subscriptions/listen` streams, which that
 * era carries in the stream's filter (`resourceSubscriptions`) instead of `resources/subscribe`:
 * each open stream holds the upstream subscriptions of the URIs it names, for as long as it is
 * open, and an update of one of them is published once, by the URI the client knows, to the
 * serving entry (which hands it to the streams whose filter names it).
 */
export class ResourceListeners {
  readonly #holder: SubscriptionHolder;
  readonly #streams = new Set<ReadonlyMap<string, SubscriptionTarget>>();
  readonly #publishers = new Set<(exposed: string) => void>();

  constructor(holder: SubscriptionHolder) {
    this.#holder = holder;
  }

  /**
   * Holds the subscriptions of one listen stream, `targets` by the URI the client named; resolves
   * with the release to call once the stream ends (idempotent). A target refused upstream is not
   * held, and its updates do not come.
   */
  async open(targets: ReadonlyMap<string, SubscriptionTarget>): Promise<() => void> {
    const held = new Map<string, SubscriptionTarget>();
    await Promise.all(
      [...targets].map(async ([exposed, target]) => {
        try {
          await this.#holder.hold(target);
          held.set(exposed, target);
        } catch {
          // Refused upstream: the stream hears nothing of it.
        }
      }),
    );
    this.#streams.add(held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#streams.delete(held);
      for (const target of held.values()) void this.#holder.release(target).catch(() => undefined);
    };
  }

  /** Hears every update a listen stream asked for, by the URI it named; returns the unsubscribe. */
  onUpdate(publish: (exposed: string) => void): () => void {
    this.#publishers.add(publish);
    return () => {
      this.#publishers.delete(publish);
    };
  }

  /** An upstream (or builtin) resource changed: publishes it to the streams that named it. */
  updated(namespace: string, uri: string): void {
    if (this.#streams.size === 0) return;
    const exposed = new Set<string>();
    for (const stream of this.#streams) {
      for (const [name, target] of stream) {
        if (target.namespace === namespace && target.uri === uri) exposed.add(name);
      }
    }
    for (const name of exposed) {
      for (const publish of this.#publishers) publish(name);
    }
  }

  /** Lets go of every stream (the gateway is closing). */
  dispose(): void {
    this.#streams.clear();
    this.#publishers.clear();
  }
}

/**
 * The URIs a `subscriptions/listen` request asks updates of (`params.notifications
 * .resourceSubscriptions`); empty for any other message, or a malformed one (the serving entry
 * answers that).
 */
export function listenedUris(message: unknown): readonly string[] {
  if (typeof message !== 'object' || message === null) return [];
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'subscriptions/listen' || typeof params !== 'object' || params === null) return [];
  const notifications = (params as { notifications?: unknown }).notifications;
  if (typeof notifications !== 'object' || notifications === null) return [];
  const uris = (notifications as { resourceSubscriptions?: unknown }).resourceSubscriptions;
  if (!Array.isArray(uris)) return [];
  // A bound, so one request cannot make the gateway resolve and hold without end.
  return [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))].slice(
    0,
    MAX_LISTENED_URIS,
  );
}

/** The most resource URIs one listen stream is held for; the SDK honours the rest, unheld. */
export const MAX_LISTENED_URIS = 1_000;
