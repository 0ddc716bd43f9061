import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { HttpError } from './request.js';

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

/**
 * Who may use the gateway: the `Host` and `Origin` headers (DNS-rebinding protection) and the
 * bearer token, all decided from the request's headers alone, before any body is read.
 */
export class AccessPolicy {
  readonly #token: Buffer | undefined;
  readonly #origins: Set<string>;
  readonly #extraHosts: readonly string[];
  #hosts = new Set<string>();

  constructor(options: AccessOptions) {
    this.#token = options.token === undefined ? undefined : Buffer.from(options.token);
    this.#origins = new Set(options.allowedOrigins ?? []);
    this.#extraHosts = options.allowedHosts ?? [];
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
  isAuthorized(req: IncomingMessage): boolean {
    if (this.#token === undefined) return true;
    const header = authorizationOf(req) ?? '';
    const scheme = /^bearer +/i.exec(header);
    if (scheme === null) return false;
    const given = Buffer.from(header.slice(scheme[0].length));
    return given.length === this.#token.length && timingSafeEqual(given, this.#token);
  }

  /** Whether a token is configured at all. */
  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /** @throws {HttpError} 403 (see {@link checkHostAndOrigin}) or 401 without the token. */
  check(req: IncomingMessage): void {
    this.checkHostAndOrigin(req);
    if (!this.isAuthorized(req)) {
      throw new HttpError(
        401,
        ProtocolErrorCode.InvalidRequest,
        'a valid bearer token is required',
      );
    }
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
