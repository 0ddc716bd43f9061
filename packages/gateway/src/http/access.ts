import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { HttpError } from './request.js';
import type { AuthFailureLimit } from './auth-failures.js';
import type { AuthAttempts } from './options.js';

/**
 * The request's `Authorization` header as sent. Node keeps only the first of repeated ones; a
 * request with two is answered as HTTP joins a repeated field (RFC 9110 §5.3), `a, b`, which no
 * bearer token matches, so it is refused rather than judged by whichever one a proxy in front
 * of the gateway did not look at.
 */
export function authorizationOf(req: IncomingMessage): string | undefined {
  const values: string[] = [];
  for (let at = 0; at < req.rawHeaders.length; at += 2) {
    if (req.rawHeaders[at]?.toLowerCase() === 'authorization')
      values.push(req.rawHeaders[at + 1] ?? '');
  }
  return values.length <= 1 ? req.headers.authorization : values.join(', ');
}

/** What {@link AccessPolicy} checks: see the options of the same names on `serveHttp`. */
export interface AccessOptions {
  readonly token?: string;
  readonly allowedHosts?: readonly string[];
  readonly allowedOrigins?: readonly string[];
}

/** Failed authentications, counted per source (absent: not limited). */
export interface AccessFailures {
  readonly limit: AuthFailureLimit;
  /** The source a request counts against (its address, or a trusted proxy's client). */
  readonly sourceOf: (req: IncomingMessage) => string;
}

/** Attempts that are never limited: what a route is given when the limit is off. */
const UNLIMITED: AuthAttempts = {
  retryAfter: () => 0,
  failed: () => undefined,
  succeeded: () => undefined,
  unverified: () => undefined,
};

/**
 * Who may use the gateway: the `Host` and `Origin` headers (DNS-rebinding protection) and the
 * bearer token, all decided from the request's headers alone, before any body is read. Wrong
 * tokens count against their source; past the budget of `failures`, the source gets 429 with
 * `Retry-After` and its token is not checked until the refusal ends.
 */
export class AccessPolicy {
  readonly #token: Buffer | undefined;
  readonly #origins: Set<string>;
  readonly #extraHosts: readonly string[];
  readonly #failures: AccessFailures | undefined;
  #hosts = new Set<string>();

  constructor(options: AccessOptions, failures?: AccessFailures) {
    this.#token = options.token === undefined ? undefined : Buffer.from(options.token);
    this.#origins = new Set(options.allowedOrigins ?? []);
    this.#extraHosts = options.allowedHosts ?? [];
    this.#failures = failures;
  }

  /** Accepts the `Host` headers naming `host` (as shown in URLs) on `port`, once it is known. */
  listening(host: string, port: number): void {
    const names = new Set(
      [host, 'localhost', '127.0.0.1', '[::1]', ...this.#extraHosts].map((n) => n.toLowerCase()),
    );
    this.#hosts = new Set();
    for (const name of names) {
      this.#hosts.add(`${name}:${port}`);
      // An extra entry may carry its own port; one without accepts the bare name too.
      this.#hosts.add(name);
    }
  }

  /** @throws {HttpError} 403 for a `Host` or `Origin` this gateway does not answer. */
  checkHostAndOrigin(req: IncomingMessage): void {
    const hostHeader = req.headers.host?.toLowerCase();
    if (hostHeader === undefined || !this.#hosts.has(hostHeader)) {
      throw new HttpError(
        403,
        ProtocolErrorCode.InvalidRequest,
        `Host ${JSON.stringify(hostHeader ?? '')} is not allowed`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#origins.has(origin) && !this.#sameOrigin(origin)) {
      throw new HttpError(
        403,
        ProtocolErrorCode.InvalidRequest,
        `Origin ${JSON.stringify(origin)} is not allowed`,
      );
    }
  }

  /**
   * True when no token is configured; otherwise whether the request carries it as `Bearer
   * <token>`, the scheme in any case and followed by one or more spaces (RFC 9110 §11.1).
   */
  #isAuthorized(req: IncomingMessage): boolean {
    if (this.#token === undefined) return true;
    const header = authorizationOf(req) ?? '';
    const scheme = /^bearer +/i.exec(header);
    if (scheme === null) return false;
    const given = Buffer.from(header.slice(scheme[0].length));
    return given.length === this.#token.length && timingSafeEqual(given, this.#token);
  }

  /**
   * @throws {HttpError} 403 (see {@link checkHostAndOrigin}), 429 with `Retry-After` while the
   * request's source is refused for its failed authentications, or 401 without the token.
   */
  check(req: IncomingMessage): void {
    this.checkHostAndOrigin(req);
    if (this.#token === undefined) return;
    const attempts = this.attempts(req);
    const wait = attempts.retryAfter();
    if (wait > 0) throw tooManyFailures(wait);
    if (!this.#isAuthorized(req)) {
      // No Authorization header guesses nothing (a client finding out that it needs one).
      if (authorizationOf(req) !== undefined) attempts.failed();
      throw new HttpError(
        401,
        ProtocolErrorCode.InvalidRequest,
        'a valid bearer token is required',
      );
    }
    attempts.succeeded();
  }

  /**
   * Whether the request carries the token, for what only its holder is shown (`/healthz`'s
   * details): never while its source is refused (the token is not checked then), and a wrong one
   * counts as a failure, as anywhere else.
   */
  holdsToken(req: IncomingMessage): boolean {
    if (this.#token === undefined || authorizationOf(req) === undefined) return false;
    const attempts = this.attempts(req);
    if (attempts.retryAfter() > 0) return false;
    const holds = this.#isAuthorized(req);
    if (holds) attempts.succeeded();
    else attempts.failed();
    return holds;
  }

  /** The failed-authentication record of the request's source, for a route's own login. */
  attempts(req: IncomingMessage): AuthAttempts {
    const failures = this.#failures;
    if (failures === undefined) return UNLIMITED;
    const source = failures.sourceOf(req);
    return {
      retryAfter: () => failures.limit.retryAfter(source),
      failed: () => {
        failures.limit.failed(source);
      },
      succeeded: () => {
        failures.limit.succeeded(source);
      },
      unverified: () => {
        failures.limit.unverified(source);
      },
    };
  }

  /** An Origin naming this server: http(s), an accepted host name, the port it listens on. */
  #sameOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    // `url.host` drops a default port, which is never the one a loopback gateway listens on here.
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.port !== '' &&
      this.#hosts.has(url.host)
    );
  }
}

/** The 429 a refused source gets, before its token is looked at. */
export function tooManyFailures(retryAfter: number): HttpError {
  return new HttpError(
    429,
    ProtocolErrorCode.InvalidRequest,
    `too many failed authentications from this address; retry in ${String(retryAfter)} s with the right token`,
    null,
    // Its body is not read: the connection ends with the answer, as for a 401.
    { 'retry-after': String(retryAfter), connection: 'close' },
  );
}
