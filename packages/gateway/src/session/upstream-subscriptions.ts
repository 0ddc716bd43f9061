import type { Toolkit, ToolkitHost } from '@toolplane/toolkit';
import type { SessionState, SubscriptionTarget } from './state.js';

/** Whose connection a subscription rides: a session's own (per-session server) or the shared one. */
export interface SubscriptionOwner {
  readonly sessionKey?: string;
}

/**
 * The upstream resource subscriptions every session (and every 2026 listen stream) of a hub
 * holds, counted: an upstream is asked once however many hold the same resource, told on the
 * last release, and asked again when a config reload replaces its server under the same
 * namespace. A per-session server's subscriptions are each session's own, on its own connection.
 */
export class UpstreamSubscriptions {
  readonly #toolkit: Toolkit;
  readonly #host: ToolkitHost;
  // Holds, by namespace, upstream URI and (for a session's own connection) session key.
  readonly #holds = new Map<string, number>();
  // The connector last seen connected under each namespace: one that differs is a replacement.
  readonly #connectorOf = new Map<string, unknown>();

  constructor(toolkit: Toolkit, host: ToolkitHost) {
    this.#toolkit = toolkit;
    this.#host = host;
    for (const { namespace } of toolkit.connectors()) {
      this.#connectorOf.set(namespace, toolkit.connector(namespace));
    }
  }

  /**
   * Whose connection `session`'s subscription to `target` rides: a per-session server's are the
   * session's own; a shared server's are asked upstream once for every session.
   */
  ownerOf(session: SessionState, target: SubscriptionTarget): SubscriptionOwner {
    const own = this.#host.connectionOf(target.namespace) === 'per-session';
    return own ? { sessionKey: session.token } : {};
  }

  /** Takes one hold on an upstream subscription, asking the upstream on the first. */
  async hold(target: SubscriptionTarget, owner: SubscriptionOwner = {}): Promise<void> {
    const key = keyOf(target, owner);
    const count = this.#holds.get(key) ?? 0;
    this.#holds.set(key, count + 1);
    if (count > 0) return;
    try {
      await this.#host.subscribeResource(target.namespace, target.uri, owner);
    } catch (error) {
      this.#release(key);
      throw error;
    }
  }

  /** Lets go of one hold, telling the upstream on the last. */
  async letGo(target: SubscriptionTarget, owner: SubscriptionOwner = {}): Promise<void> {
    if (!this.#release(keyOf(target, owner))) return;
    await this.#host
      .unsubscribeResource(target.namespace, target.uri, owner)
      .catch(() => undefined);
  }

  /**
   * A server replaced under the same namespace (a config reload) starts with no subscriptions:
   * the shared ones sessions hold are asked of it again, so their updates keep coming. (A
   * connector keeps its own across its reconnections.)
   */
  resubscribeIfReplaced(namespace: string): void {
    const connector = this.#toolkit.connector(namespace);
    const before = this.#connectorOf.get(namespace);
    this.#connectorOf.set(namespace, connector);
    if (before === undefined || before === connector) return;
    const prefix = `${namespace}\u0000`;
    for (const key of this.#holds.keys()) {
      const [, uri, sessionKey] = key.split('\u0000');
      if (!key.startsWith(prefix) || uri === undefined || sessionKey !== undefined) continue;
      void this.#host.subscribeResource(namespace, uri, {}).catch(() => undefined);
    }
  }

  /** Drops one hold; true when it was the last. */
  #release(key: string): boolean {
    const count = (this.#holds.get(key) ?? 1) - 1;
    if (count > 0) {
      this.#holds.set(key, count);
      return false;
    }
    this.#holds.delete(key);
    return true;
  }
}

function keyOf(target: SubscriptionTarget, { sessionKey }: SubscriptionOwner): string {
  const key = `${target.namespace}\u0000${target.uri}`;
  return sessionKey === undefined ? key : `${key}\u0000${sessionKey}`;
}
