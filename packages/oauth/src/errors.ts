import { ToolError, type ToolErrorCode } from '@toolplane/toolmodel';

/**
 * Why a request was refused, as RFC 6750 §3.1 names it; `missing_token` is a request with no
 * token at all (answered without an `error` attribute), `unavailable` an authorization server
 * that could not be asked.
 */
export type AuthErrorReason =
  'missing_token' | 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'unavailable';

const STATUS: Record<AuthErrorReason, 400 | 401 | 403 | 503> = {
  missing_token: 401,
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  unavailable: 503,
};

const CODE: Record<AuthErrorReason, ToolErrorCode> = {
  missing_token: 'unauthorized',
  invalid_request: 'unauthorized',
  invalid_token: 'unauthorized',
  insufficient_scope: 'forbidden',
  unavailable: 'connector_unavailable',
};

/** Options of {@link AuthError}. */
export interface AuthErrorOptions {
  /** The scopes that would have been enough (for `insufficient_scope`). */
  readonly scopes?: readonly string[];
  /** For `unavailable`: in how many seconds asking again may succeed (`Retry-After`). */
  readonly retryAfterSec?: number;
  readonly cause?: unknown;
}

/**
 * A request the resource server refuses. Its `reason` decides the HTTP status (`status`) and
 * the `error` of the `WWW-Authenticate` challenge; its message says what was wrong and never
 * carries the token or any part of it. Its {@link ToolError} `code` is `forbidden` for
 * `insufficient_scope`, `connector_unavailable` when the authorization server could not be asked,
 * and `unauthorized` otherwise.
 */
export class AuthError extends ToolError {
  override name = 'AuthError';
  readonly reason: AuthErrorReason;
  /** The HTTP status to answer with. */
  readonly status: 400 | 401 | 403 | 503;
  /** The scopes that would have been enough, for a `insufficient_scope` refusal. */
  readonly scopes: readonly string[];
  /**
   * In how many seconds asking again may succeed, when the refusal knows (a failed discovery
   * is the answer until its backoff ends); an HTTP server sends it as `Retry-After`.
   */
  readonly retryAfterSec: number | undefined;

  constructor(reason: AuthErrorReason, message: string, options: AuthErrorOptions = {}) {
    super(CODE[reason], message, options.cause === undefined ? {} : { cause: options.cause });
    this.reason = reason;
    this.status = STATUS[reason];
    this.scopes = options.scopes ?? [];
    this.retryAfterSec = options.retryAfterSec;
  }

  /** True for an {@link AuthError}, including one from another copy of this package. */
  static isAuthError(value: unknown): value is AuthError {
    return (
      ToolError.isInstance(value) &&
      typeof (value as Partial<AuthError>).reason === 'string' &&
      typeof (value as Partial<AuthError>).status === 'number'
    );
  }
}
