import {
  checkCount,
  checkDuration,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import type { ConnectorClientLike, ToolkitConnector } from './connector.js';

/** Bounds on the connections of servers added with `connection: 'per-session'`. */
export interface SessionConnectionLimits {
  /** Connections one server may have open at once, over all sessions. Default 32. */
  readonly max?: number;
  /** A connection no call has used for this long is closed. Default 5 minutes. */
  readonly idleMs?: number;
}

const KNOWN = optionKeys<SessionConnectionLimits>({ max: true, idleMs: true });

/** How many per-session connections one server may have open unless `max` says otherwise. */
export const DEFAULT_MAX_SESSION_CONNECTIONS = 32;
/** How long a per-session connection may go unused before it is closed, unless `idleMs` says. */
export const DEFAULT_SESSION_IDLE_MS = 5 * 60_000;

interface Held {
  readonly namespace: string;
  readonly session: string;
  readonly connector: ToolkitConnector;
  busy: number;
  lastUsed: number;
}

/**
 * The connections of per-session servers: one per server and client session, made on the
 * session's first use, closed when the session ends, when idle past `idleMs`, or, least recently
 * used first, to make room under `max`. A connection with a call in flight is never closed for
 * room or idleness; a session that needs one when all are busy is refused.
 *
 * @internal
 */
export class SessionConnections {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #make: (namespace: string, session: string) => ToolkitConnector;
  // By namespace and session, least recently used first (an entry moves to the end on use).
  readonly #held = new Map<string, Held>();
  #reaper: ReturnType<typeof setInterval> | undefined;

  constructor(
    limits: SessionConnectionLimits,
    make: (namespace: string, session: string) => ToolkitConnector,
  ) {
    refuseUnknownOptions(limits, KNOWN, 'sessionConnections', { code: 'invalid_config' });
    this.#max = limits.max ?? DEFAULT_MAX_SESSION_CONNECTIONS;
    this.#idleMs = limits.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    checkCount(this.#max, 'sessionConnections.max', { code: 'invalid_config' });
    checkDuration(this.#idleMs, 'sessionConnections.idleMs', { code: 'invalid_config' });
    this.#make = make;
  }

  /**
   * Marks `session`'s connection to `namespace` in use, making it (and starting it) when there
   * is none; returns the function that marks it free again.
   *
   * @throws {ToolError} `rate_limited` when the server has `max` connections, all busy.
   */
  hold(namespace: string, session: string): () => void {
    const key = keyOf(namespace, session);
    const held = this.#held.get(key) ?? this.#open(namespace, session);
    this.#held.delete(key);
    this.#held.set(key, held);
    held.busy++;
    held.lastUsed = Date.now();
    return () => {
      held.busy--;
      held.lastUsed = Date.now();
    };
  }

  /** The connected client of `session`'s connection to `namespace` (see {@link hold}). */
  client(namespace: string, session: string): ConnectorClientLike | Promise<ConnectorClientLike> {
    const held = this.#held.get(keyOf(namespace, session));
    if (held === undefined) {
      throw new ToolError(
        'connector_unavailable',
        `no connection of this session to MCP server "${namespace}"`,
      );
    }
    const { connector } = held;
    const client = connector.client;
    if (client !== undefined) return client;
    return connector.ready().then(() => {
      const ready = connector.client;
      if (ready === undefined) throw connector.unavailable();
      return ready;
    });
  }

  /** The connector of `session`'s connection to `namespace`, if it has one. */
  get(namespace: string, session: string): ToolkitConnector | undefined {
    return this.#held.get(keyOf(namespace, session))?.connector;
  }

  /** The connectors `session` holds. */
  of(session: string): ToolkitConnector[] {
    return [...this.#held.values()].filter((h) => h.session === session).map((h) => h.connector);
  }

  /** How many connections are open, to `namespace` or in all. */
  count(namespace?: string): number {
    let count = 0;
    for (const held of this.#held.values())
      if (namespace === undefined || held.namespace === namespace) count++;
    return count;
  }

  /** Closes what `session` holds. */
  async end(session: string): Promise<void> {
    await this.#closeAll([...this.#held.values()].filter((held) => held.session === session));
  }

  /** Closes what is held for `namespace` (a server removed). */
  async drop(namespace: string): Promise<void> {
    await this.#closeAll(this.detach(namespace).map((connector) => ({ connector })));
  }

  /**
   * Forgets what is held for `namespace` at once (a server being replaced gets new connections)
   * and hands the connectors over, still open, to be drained and closed by the caller.
   */
  detach(namespace: string): ToolkitConnector[] {
    const gone = [...this.#held.values()].filter((held) => held.namespace === namespace);
    for (const held of gone) this.#held.delete(keyOf(held.namespace, held.session));
    return gone.map((held) => held.connector);
  }

  async close(): Promise<void> {
    clearInterval(this.#reaper);
    this.#reaper = undefined;
    await this.#closeAll([...this.#held.values()]);
  }

  #open(namespace: string, session: string): Held {
    if (this.count(namespace) >= this.#max) {
      const idle = [...this.#held.values()].find((h) => h.namespace === namespace && h.busy === 0);
      if (idle === undefined) {
        throw new ToolError(
          'rate_limited',
          `MCP server "${namespace}" has ${this.#max} per-session connections, all with calls in flight; retry shortly`,
        );
      }
      void this.#closeAll([idle]);
    }
    const connector = this.#make(namespace, session);
    const held: Held = { namespace, session, connector, busy: 0, lastUsed: Date.now() };
    this.#held.set(keyOf(namespace, session), held);
    connector.start();
    this.#reaper ??= setInterval(
      () => {
        this.#reap();
      },
      Math.max(Math.min(this.#idleMs / 2, 30_000), 10),
    ).unref();
    return held;
  }

  #reap(): void {
    const now = Date.now();
    void this.#closeAll(
      [...this.#held.values()].filter((h) => h.busy === 0 && now - h.lastUsed >= this.#idleMs),
    );
    if (this.#held.size === 0) {
      clearInterval(this.#reaper);
      this.#reaper = undefined;
    }
  }

  async #closeAll(
    held: readonly (Pick<Held, 'connector'> & Partial<Pick<Held, 'namespace' | 'session'>>)[],
  ): Promise<void> {
    for (const { namespace, session } of held) {
      if (namespace !== undefined && session !== undefined) {
        this.#held.delete(keyOf(namespace, session));
      }
    }
    await Promise.all(held.map(({ connector }) => connector.close()));
  }
}

function keyOf(namespace: string, session: string): string {
  return `${namespace}\u0000${session}`;
}
