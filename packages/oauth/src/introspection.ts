import { createHash } from 'node:crypto';
import {
  checkCount,
  checkDuration,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import { authErrorIn, boundedFetch } from './bounded-fetch.js';
import { AuthError } from './errors.js';
import { FailureBackoff } from './failure-backoff.js';
import { clockTolerance } from './jwt.js';

/** How long an introspection endpoint that failed is not asked again. */
const FAILED_INTROSPECTION_BACKOFF_MS = 5_000;

/** Options of {@link createIntrospector}: how the resource server authenticates to the endpoint. */
export interface IntrospectionOptions {
  /** The resource server's client ID at the authorization server. */
  readonly clientId: string;
  /** Its secret (sent as HTTP Basic, `client_secret_basic`). */
  readonly clientSecret: string;
  /** The endpoint (default: `introspection_endpoint` from the issuer's metadata). */
  readonly endpoint?: string;
  /** Give up after this long (default 5 s). */
  readonly timeoutMs?: number;
  /**
   * How active answers are cached, by a SHA-256 hash of the token (never the token itself):
   * each for the token's remaining lifetime, at most `maxTtlSec` (default 60, which bounds how
   * long a revoked token still works), and at most `maxEntries` answers (default 10,000, least
   * recently used dropped first). Inactive answers and failures are not cached. `false`: ask
   * the endpoint on every request.
   */
  readonly cache?: IntrospectionCacheOptions | false;
}

/** Options of the introspection cache; see {@link IntrospectionOptions.cache}. */
export interface IntrospectionCacheOptions {
  readonly maxTtlSec?: number;
  readonly maxEntries?: number;
}

/** The members of an RFC 7662 introspection response this package reads. */
export interface IntrospectionResponse {
  readonly active: boolean;
  readonly scope?: string;
  readonly client_id?: string;
  readonly sub?: string;
  readonly exp?: number;
  readonly nbf?: number;
  readonly iss?: string;
  readonly aud?: string | readonly string[];
  readonly [member: string]: unknown;
}

/** Asks whether an opaque token is active, for one audience; see {@link createIntrospector}. */
export type Introspector = (
  token: string,
  audience: string,
  options?: { signal?: AbortSignal },
) => Promise<IntrospectionResponse>;

const INTROSPECTION_KEYS = optionKeys<IntrospectionOptions>({
  clientId: true,
  clientSecret: true,
  endpoint: true,
  timeoutMs: true,
  cache: true,
});
const CACHE_KEYS = optionKeys<IntrospectionCacheOptions>({ maxTtlSec: true, maxEntries: true });
// What createIntrospector takes besides: the resource server hands them on.
const INTROSPECTOR_KEYS = [...INTROSPECTION_KEYS, 'issuer', 'clockToleranceSec', 'fetch'];

/**
 * Checks introspection options before anything is asked: no key it does not take (a misspelt
 * `timeoutMs` or cache bound would be ignored without a word), and a `timeoutMs` a timer keeps.
 *
 * @throws {ToolError} `invalid_config` naming the key and what it must be.
 */
export function checkIntrospectionOptions(
  options: unknown,
  where: string,
  known: readonly string[] = INTROSPECTION_KEYS,
): void {
  const code = 'invalid_config';
  refuseUnknownOptions(options, known, where, { code });
  const { timeoutMs, cache } = options as IntrospectionOptions;
  if (timeoutMs !== undefined) {
    checkDuration(timeoutMs, `${where}.timeoutMs`, { code, whole: true });
  }
  if (typeof cache === 'object')
    refuseUnknownOptions(cache, CACHE_KEYS, `${where}.cache`, { code });
}

/**
 * An RFC 7662 introspection client. The endpoint's redirects are not followed, and an answer
 * past 1 MiB is not read (both `unavailable`). A token is accepted only when the server says
 * `active`, it names the expected issuer (when it names one), its `aud` includes the resource
 * (RFC 8707: a token for another resource is refused; a response without `aud` is refused too),
 * and it has not expired or is not yet valid (with `clockToleranceSec` leeway).
 *
 * @throws {ToolError} `invalid_config` (at once) for a key it does not take, a `timeoutMs` a
 * timer cannot keep, a `clockToleranceSec` that is not a number of seconds, 0 or more, or cache
 * bounds out of range.
 */
export function createIntrospector(
  options: Omit<IntrospectionOptions, 'endpoint'> & {
    readonly issuer: string;
    readonly endpoint: () => Promise<string>;
    readonly clockToleranceSec?: number;
    readonly fetch?: typeof fetch;
  },
): Introspector {
  checkIntrospectionOptions(options, 'createIntrospector', INTROSPECTOR_KEYS);
  const fetchFn = boundedFetch(options.fetch ?? fetch);
  const basic = Buffer.from(
    `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
  ).toString('base64');
  const tolerance = clockTolerance(options.clockToleranceSec);
  // An endpoint that did not answer, or answered an error status or a redirect, is not asked
  // again for 5 s: each made-up token would otherwise cost a failing server a request. An
  // answer about one token (malformed, too large) says nothing of the next, and is not held.
  const failures = new FailureBackoff(FAILED_INTROSPECTION_BACKOFF_MS);
  const ask = async (token: string, signal: AbortSignal | undefined) => {
    failures.throwIfHeld();
    const endpoint = await options.endpoint();
    let response: Response;
    try {
      response = await fetchFn(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        // Never followed: a redirect would hand the token to wherever it points, and its answer
        // would come from a server that holds neither our credentials nor the issuer's word.
        redirect: 'manual',
        signal: AbortSignal.any([
          AbortSignal.timeout(options.timeoutMs ?? 5_000),
          ...(signal === undefined ? [] : [signal]),
        ]),
      });
    } catch (error) {
      const refused = authErrorIn(error);
      if (refused !== undefined) throw refused;
      const silent = new AuthError(
        'unavailable',
        `the introspection endpoint of ${options.issuer} did not answer`,
        { cause: error },
      );
      // A caller that went away says nothing of the endpoint.
      throw failures.fail(silent, signal?.aborted !== true);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw failures.fail(
        new AuthError(
          'unavailable',
          `the introspection endpoint of ${options.issuer} answered with a redirect (HTTP ${String(response.status)}), which is not followed; configure the endpoint it points to`,
        ),
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw failures.fail(
        new AuthError(
          'unavailable',
          `the introspection endpoint of ${options.issuer} answered HTTP ${String(response.status)}; check the introspection client credentials`,
        ),
      );
    }
    failures.succeeded();
    const answer: unknown = await response.json().catch((error: unknown) => {
      const failure = authErrorIn(error);
      if (failure !== undefined) throw failure;
      return undefined;
    });
    const body = answer as IntrospectionResponse;
    if (typeof answer !== 'object' || answer === null || typeof body.active !== 'boolean') {
      throw new AuthError(
        'unavailable',
        `the introspection endpoint of ${options.issuer} answered no "active" member`,
      );
    }
    if (!body.active) throw new AuthError('invalid_token', 'the token is not active');
    const malformed = malformedMember(body);
    if (malformed !== undefined) {
      throw new AuthError(
        'unavailable',
        `the introspection endpoint of ${options.issuer} answered a malformed "${malformed}" member`,
      );
    }
    return body;
  };
  const cached = options.cache === false ? undefined : answerCache(options.cache, ask);
  return async (token, audience, { signal } = {}) => {
    const body = await (cached === undefined ? ask(token, signal) : cached(token, signal));
    if (body.iss !== undefined && body.iss !== options.issuer) {
      throw new AuthError('invalid_token', `the token was not issued by ${options.issuer}`);
    }
    const audiences = typeof body.aud === 'string' ? [body.aud] : (body.aud ?? []);
    if (!audiences.includes(audience)) {
      throw new AuthError('invalid_token', 'the token was issued for another resource');
    }
    const now = Date.now() / 1000;
    if (typeof body.exp === 'number' && body.exp + tolerance <= now) {
      throw new AuthError('invalid_token', 'the token has expired');
    }
    if (typeof body.nbf === 'number' && body.nbf - tolerance > now) {
      throw new AuthError('invalid_token', 'the token is not valid yet');
    }
    return body;
  };
}

/**
 * The first member of an active answer that RFC 7662 §2.2 types and this one does not have as
 * typed: a checked member of another type would be skipped (an `exp` as a string: no expiry at
 * all) or fail deep inside (an `aud` that is a number).
 */
function malformedMember(body: IntrospectionResponse): string | undefined {
  for (const member of ['exp', 'nbf', 'iat'] as const) {
    const value = body[member];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      return member;
    }
  }
  if (body.iss !== undefined && typeof body.iss !== 'string') return 'iss';
  const aud: unknown = body.aud;
  if (
    aud !== undefined &&
    typeof aud !== 'string' &&
    !(Array.isArray(aud) && aud.every((entry) => typeof entry === 'string'))
  ) {
    return 'aud';
  }
  return undefined;
}

interface CacheEntry {
  readonly answer: Promise<IntrospectionResponse>;
  /** Epoch ms after which the answer is asked again; `Infinity` while it is being asked. */
  until: number;
}

/**
 * `ask`, with active answers kept by token hash: requests with one token while it is being
 * asked wait for the same answer, and later ones reuse it until it is due. Why inactive answers
 * are not kept: tokens an attacker invents are each new (so caching them saves nothing and
 * would push real callers' answers out), and a client retrying a token just refused is rare.
 */
function answerCache(
  options: IntrospectionCacheOptions | undefined,
  ask: (token: string, signal: AbortSignal | undefined) => Promise<IntrospectionResponse>,
): (token: string, signal: AbortSignal | undefined) => Promise<IntrospectionResponse> {
  const maxTtlSec = options?.maxTtlSec ?? 60;
  const maxEntries = options?.maxEntries ?? 10_000;
  if (!Number.isFinite(maxTtlSec) || maxTtlSec < 0) {
    throw new ToolError(
      'invalid_config',
      'auth.introspection.cache.maxTtlSec must be a number of seconds, 0 or more',
    );
  }
  checkCount(maxEntries, 'auth.introspection.cache.maxEntries', { code: 'invalid_config' });
  const maxTtlMs = maxTtlSec * 1000;
  const entries = new Map<string, CacheEntry>();
  return (token, signal) => {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const found = entries.get(key);
    if (found !== undefined && found.until > now) {
      // Most recently used last: the first entry is the one to drop.
      entries.delete(key);
      entries.set(key, found);
      return untilAborted(found.answer, signal);
    }
    // Asked without the caller's signal: one caller's abort must not fail the others waiting on
    // the same answer (the endpoint's timeout still bounds it).
    const answer = ask(token, undefined);
    const entry: CacheEntry = { answer, until: Number.POSITIVE_INFINITY };
    entries.delete(key);
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    entries.set(key, entry);
    answer.then(
      (body) => {
        const lifetime =
          typeof body.exp === 'number' ? body.exp * 1000 - Date.now() : Number.POSITIVE_INFINITY;
        entry.until = Date.now() + Math.min(maxTtlMs, lifetime);
        if (entry.until <= Date.now() && entries.get(key) === entry) entries.delete(key);
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return untilAborted(answer, signal);
  };
}

/** `promise`, or a rejection with the signal's reason when `signal` aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
      })
      .then(resolve, reject);
  });
}
