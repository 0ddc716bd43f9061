import type { HttpServerTransport } from './transport.js';
import type { McpServerInstance } from '../sdk/gateway-server.js';

/** One client's session: its transport and server, who opened it, and how busy it is. */
export interface HttpSession {
  readonly transport: HttpServerTransport;
  readonly server: McpServerInstance;
  /**
   * The caller that opened it (OAuth's key of the caller), recorded as it is opened and gone
   * with it; `undefined` without OAuth.
   */
  readonly owner: string | undefined;
  /** POSTs in progress; a session serving one is never idle. */
  busy: number;
}

/** Bounds of a {@link SessionTable}. */
export interface SessionLimits {
  /** Most sessions open at once. */
  readonly maxSessions: number;
  /** A session without requests for this long is closed. */
  readonly idleMs: number;
}

interface Entry {
  readonly session: HttpSession;
  lastSeen: number;
}

/**
 * The open sessions, least recently used first, bounded in number and in idle time: when full,
 * the least recently used session with no request in flight is closed to make room (its client
 * gets 404 next time and initializes anew, as the protocol says); sessions idle past the limit
 * are closed by a timer.
 */
export class SessionTable {
  // A Map keeps insertion order: touching a session moves it to the end, so the first entry
  // is always the least recently used.
  readonly #entries = new Map<string, Entry>();
  readonly #limits: SessionLimits;
  readonly #reaper: NodeJS.Timeout;

  constructor(limits: SessionLimits) {
    this.#limits = limits;
    this.#reaper = setInterval(
      () => {
        this.#reap();
      },
      Math.max(10, Math.min(limits.idleMs / 2, 60_000)),
    );
    this.#reaper.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The session named `id`, marked as used now; `undefined` when there is none, or when `owner`
   * did not open it (to another caller a session is as unknown as one that never was, and its
   * use does not keep it alive).
   */
  use(id: string, owner: string | undefined): HttpSession | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.session.owner !== owner) return undefined;
    entry.lastSeen = Date.now();
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry.session;
  }

  /**
   * Makes room for one more session: when the table is full, closes the least recently used
   * session with no request in flight. False when every session is busy.
   */
  makeRoom(): boolean {
    if (this.#entries.size < this.#limits.maxSessions) return true;
    for (const [id, entry] of this.#entries) {
      if (entry.session.busy > 0) continue;
      this.#entries.delete(id);
      void entry.session.transport.close();
      return true;
    }
    return false;
  }

  add(id: string, session: HttpSession): void {
    this.#entries.set(id, { session, lastSeen: Date.now() });
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }

  /** Stops the idle timer and closes every session. */
  async close(): Promise<void> {
    clearInterval(this.#reaper);
    const sessions = [...this.#entries.values()].map((entry) => entry.session);
    this.#entries.clear();
    await Promise.all(sessions.map((session) => session.transport.close()));
  }

  #reap(): void {
    const oldest = Date.now() - this.#limits.idleMs;
    for (const [id, entry] of this.#entries) {
      // Least recently used first: past the first recent one, all are recent.
      if (entry.lastSeen > oldest) break;
      if (entry.session.busy > 0) continue;
      this.#entries.delete(id);
      void entry.session.transport.close();
    }
  }
}
