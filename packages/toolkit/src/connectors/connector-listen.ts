import {
  ProtocolError,
  ProtocolErrorCode,
  type Client,
  type McpSubscription,
  type RequestOptions,
  type SubscriptionFilter,
} from '@modelcontextprotocol/client';
import type { ListKind } from './connector-lists.js';

// Sent as plain requests: the connector's client routes its own subscribeResource here.
function subscribe(client: Client, uri: string, options: RequestOptions): Promise<unknown> {
  return client.request({ method: 'resources/subscribe', params: { uri } }, options);
}

/**
 * The resource subscriptions of one connector, kept across its connections, and how they reach
 * the server: `resources/subscribe` on a 2025 connection; on a 2026-07-28 one, which has no such
 * method, the `resourceSubscriptions` of the connection's `subscriptions/listen` stream, opened
 * again with the new filter whenever the set changes.
 *
 * Why one stream rather than one per URI: a server caps the streams open at once (the SDK's
 * entries at 1,024 by default), and a gateway in front may hold thousands of subscriptions.
 */
export class ResourceSubscriptions {
  readonly #uris = new Set<string>();
  #connection: Connection | undefined;

  /** @param mirrors - Whether the connector follows a list: only those lists' changes are asked for. */
  constructor(private readonly mirrors: (kind: ListKind) => boolean = () => true) {}

  /** The URIs subscribed to. */
  get uris(): readonly string[] {
    return [...this.#uris];
  }

  /**
   * Takes `client` as the current connection: on 2026-07-28 opens its listen stream (list
   * changes the server announces, plus every URI subscribed to); on 2025 subscribes again to
   * every URI (a new connection has none). Resolves once done; a refusal is not fatal.
   */
  async connect(client: Client): Promise<void> {
    const connection = new Connection(client, this.mirrors);
    this.#connection = connection;
    if (client.getProtocolEra() === 'modern') {
      await connection.relisten([...this.#uris]).catch(() => undefined);
      return;
    }
    if (client.getServerCapabilities()?.resources?.subscribe !== true) return;
    await Promise.all(
      [...this.#uris].map((uri) => subscribe(client, uri, {}).catch(() => undefined)),
    );
  }

  /** Forgets the connection that ended (closing its listen stream). */
  async disconnect(client: Client): Promise<void> {
    const connection = this.#connection;
    if (connection?.client !== client) return;
    this.#connection = undefined;
    await connection.close();
  }

  /**
   * Subscribes to `uri` on `client`'s connection. Set semantics, as `resources/subscribe`: a
   * second subscription to the same URI changes nothing.
   *
   * @throws {ProtocolError} when the server refuses it (on 2026-07-28: when its listen stream
   * does not honour the URI).
   */
  async subscribe(client: Client, uri: string, options: RequestOptions = {}): Promise<void> {
    const connection = this.#current(client);
    if (connection === undefined || client.getProtocolEra() !== 'modern') {
      await subscribe(client, uri, options);
      this.#uris.add(uri);
      return;
    }
    if (this.#uris.has(uri)) return;
    this.#uris.add(uri);
    try {
      const honoured = await connection.relisten([...this.#uris]);
      if (!honoured.includes(uri)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `the server did not take "${uri}" into its subscriptions/listen resource subscriptions`,
        );
      }
    } catch (error) {
      this.#uris.delete(uri);
      await connection.relisten([...this.#uris]).catch(() => undefined);
      throw error;
    }
  }

  /** Undoes {@link subscribe}; on 2026-07-28 the listen stream narrows (or ends). */
  async unsubscribe(client: Client, uri: string, options: RequestOptions = {}): Promise<void> {
    const connection = this.#current(client);
    if (connection === undefined || client.getProtocolEra() !== 'modern') {
      this.#uris.delete(uri);
      await client.request({ method: 'resources/unsubscribe', params: { uri } }, options);
      return;
    }
    if (!this.#uris.delete(uri)) return;
    await connection.relisten([...this.#uris]);
  }

  #current(client: Client): Connection | undefined {
    return this.#connection?.client === client ? this.#connection : undefined;
  }
}

/** One 2026-07-28 connection's listen stream, replaced (one change at a time) as the filter changes. */
class Connection {
  readonly client: Client;
  readonly #mirrors: (kind: ListKind) => boolean;
  #subscription: McpSubscription | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(client: Client, mirrors: (kind: ListKind) => boolean) {
    this.client = client;
    this.#mirrors = mirrors;
  }

  /**
   * Opens the stream for `uris` (and the list changes the server announces), then closes the
   * one it replaces, so no update falls between the two; resolves with the URIs the server
   * honoured. With nothing to listen for, only closes.
   */
  relisten(uris: readonly string[]): Promise<readonly string[]> {
    const next = this.#queue.then(async () => {
      if (this.#isClosed()) return [];
      const previous = this.#subscription;
      const filter = changeFilter(this.client, uris, this.#mirrors);
      this.#subscription = filter === undefined ? undefined : await this.client.listen(filter);
      await previous?.close().catch(() => undefined);
      // Closed while the stream was being opened: it goes too.
      if (this.#isClosed()) await this.#subscription?.close().catch(() => undefined);
      return this.#subscription?.honoredFilter.resourceSubscriptions ?? [];
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  // A method, so a check after an await is not narrowed away.
  #isClosed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    await this.#subscription?.close().catch(() => undefined);
    this.#subscription = undefined;
  }
}

/**
 * What a 2026-07-28 connection listens for: the changes the server announces (the 2026
 * replacement of free-floating `list_changed` notifications) to the lists the connector
 * `mirrors`, plus `uris` when the server offers subscriptions; `undefined` when that is nothing.
 */
export function changeFilter(
  client: Client,
  uris: readonly string[],
  mirrors: (kind: ListKind) => boolean = () => true,
): SubscriptionFilter | undefined {
  const capabilities = client.getServerCapabilities() ?? {};
  const follows = (kind: ListKind, announced: boolean | undefined): boolean =>
    announced === true && mirrors(kind);
  const filter: SubscriptionFilter = {
    ...(follows('tools', capabilities.tools?.listChanged) ? { toolsListChanged: true } : {}),
    ...(follows('prompts', capabilities.prompts?.listChanged) ? { promptsListChanged: true } : {}),
    ...(follows('resources', capabilities.resources?.listChanged)
      ? { resourcesListChanged: true }
      : {}),
    ...(uris.length > 0 && capabilities.resources?.subscribe === true
      ? { resourceSubscriptions: [...uris] }
      : {}),
  };
  return Object.keys(filter).length === 0 ? undefined : filter;
}
