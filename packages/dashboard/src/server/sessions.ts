import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The session cookie's name. */
export const COOKIE_NAME = 'toolplane_ui';

/**
 * Dashboard logins: each a random id, handed out as `id.signature` (HMAC-SHA256 under a key of
 * this process), so the cookie never holds the token and a forged or altered one is refused
 * before any lookup. Bounded: the oldest login makes room for a new one.
 */
export class UiSessions {
  readonly #key = randomBytes(32);
  readonly #sessions = new Map<string, number>();
  readonly #max: number;
  readonly #ttlMs: number;

  constructor(options: { readonly max: number; readonly ttlMs: number }) {
    this.#max = options.max;
    this.#ttlMs = options.ttlMs;
  }

  /** A new session; the cookie value and its lifetime in seconds. */
  open(expiresAt?: number): { value: string; maxAge: number } {
    const id = randomBytes(18).toString('base64url');
    const until = Math.min(Date.now() + this.#ttlMs, expiresAt ?? Number.POSITIVE_INFINITY);
    this.#sessions.set(id, until);
    while (this.#sessions.size > this.#max) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    return {
      value: `${id}.${this.#sign(id)}`,
      maxAge: Math.max(1, Math.floor((until - Date.now()) / 1000)),
    };
  }

  /** The session id the request's cookie proves, if it proves one still open. */
  check(req: IncomingMessage): string | undefined {
    const value = cookieOf(req, COOKIE_NAME);
    if (value === undefined) return undefined;
    const dot = value.indexOf('.');
    if (dot <= 0) return undefined;
    const id = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.#sign(id));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const until = this.#sessions.get(id);
    if (until === undefined) return undefined;
    if (until <= Date.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return id;
  }

  /** Whether session `id` is still open: not logged out, expired or made room for. */
  isOpen(id: string): boolean {
    const until = this.#sessions.get(id);
    return until !== undefined && until > Date.now();
  }

  /** Ends a session (logout). */
  close(id: string): void {
    this.#sessions.delete(id);
  }

  #sign(id: string): string {
    return createHmac('sha256', this.#key).update(id).digest('base64url');
  }
}

/** The value of cookie `name` in the request's `Cookie` header. */
function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
