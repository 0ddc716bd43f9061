import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JWTPayload,
  type RemoteJWKSetOptions,
} from 'jose';
import { optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import { authErrorIn, boundedFetch } from './bounded-fetch.js';
import { AuthError } from './errors.js';
import { FailureBackoff } from './failure-backoff.js';

/**
 * The signature algorithms accepted by default: asymmetric only. `none` and the HMAC family
 * (HS*) are never accepted: a resource server holds no secret shared with the issuer, and a
 * token "signed" with a public key as an HMAC secret is the classic confusion attack.
 */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** Options of {@link createJwtVerifier}. */
export interface JwtVerifierOptions {
  /** The issuer every token must name in `iss`. */
  readonly issuer: string;
  /** Where the issuer's keys are; resolved once, on first use (e.g. from discovery). */
  readonly jwksUri: () => Promise<string>;
  /** Accepted `alg` values (default {@link DEFAULT_ALGORITHMS}); `none` and `HS*` are refused. */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp`, `nbf` and `iat`, in seconds (default 30). */
  readonly clockToleranceSec?: number;
  /**
   * Require the RFC 9068 header `typ: at+jwt`, so no other JWT of the issuer (an ID token) can
   * pass as an access token. Off by default: many servers still issue access tokens typed `JWT`
   * (the audience check already keeps ID tokens out, their `aud` being a client ID).
   */
  readonly requireAccessTokenType?: boolean;
  /** How the key set is fetched and cached (jose's `createRemoteJWKSet` options). */
  readonly jwks?: Pick<RemoteJWKSetOptions, 'cacheMaxAge' | 'cooldownDuration' | 'timeoutDuration'>;
  /** The `fetch` the key set is fetched with (default the global one). */
  readonly fetch?: typeof fetch;
}

const VERIFIER_KEYS = optionKeys<JwtVerifierOptions>({
  issuer: true,
  jwksUri: true,
  algorithms: true,
  clockToleranceSec: true,
  requireAccessTokenType: true,
  jwks: true,
  fetch: true,
});
const JWKS_KEYS = optionKeys<NonNullable<JwtVerifierOptions['jwks']>>({
  cacheMaxAge: true,
  cooldownDuration: true,
  timeoutDuration: true,
});

/**
 * Refuses a key of `jwks` that is not one of jose's key-set options taken here: a misspelt one
 * would leave the cache as jose has it without a word.
 *
 * @throws {ToolError} `invalid_config` naming the key and the nearest known one.
 */
export function checkJwksOptions(jwks: unknown, where: string): void {
  if (jwks !== undefined) refuseUnknownOptions(jwks, JWKS_KEYS, where, { code: 'invalid_config' });
}

/** Verifies a JWT access token for one audience; see {@link createJwtVerifier}. */
export type JwtVerifier = (token: string, audience: string) => Promise<JWTPayload>;

/** Whether `token` has the shape of a JWS compact serialization (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]*\.[\w-]*$/.test(token);
}

/**
 * A verifier of JWT access tokens against the issuer's JSON Web Key Set, fetched with jose's
 * `createRemoteJWKSet`: cached, refetched when a token names a key it has not seen (rotation),
 * at most once per cooldown (and, after a failed fetch, not again for 5 s or the cooldown when
 * shorter); a key set past 1 MiB is refused. It checks the signature, `alg` against the allowed
 * list, `iss`, `aud` (the resource's canonical URI, RFC 8707), and `exp`/`nbf` with a small
 * leeway.
 *
 * @throws {ToolError} `invalid_config` (at once) when `algorithms` names `none` or an HS* one,
 * or `clockToleranceSec` is not a number of seconds, 0 or more.
 */
export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  refuseUnknownOptions(options, VERIFIER_KEYS, 'createJwtVerifier', { code: 'invalid_config' });
  checkJwksOptions(options.jwks, 'createJwtVerifier jwks');
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  const unsafe = algorithms.filter((alg) => alg === 'none' || /^HS/i.test(alg));
  if (unsafe.length > 0) {
    throw new ToolError(
      'invalid_config',
      `algorithms ${unsafe.join(', ')} are never accepted for access tokens`,
    );
  }
  const tolerance = clockTolerance(options.clockToleranceSec);
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () =>
    (keys ??= options.jwksUri().then(
      (uri) =>
        createRemoteJWKSet(new URL(uri), {
          ...options.jwks,
          [customFetch]: keySetFetch(
            boundedFetch(options.fetch ?? fetch),
            Math.min(options.jwks?.cooldownDuration ?? 30_000, FAILED_KEY_SET_BACKOFF_MS),
          ),
        }),
      (error: unknown) => {
        // The next request asks again instead of failing forever.
        keys = undefined;
        throw error;
      },
    ));

  return async (token, audience) => {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch (error) {
      throw new AuthError('invalid_token', 'the token is not a well-formed JWT', { cause: error });
    }
    if (typeof alg !== 'string' || !algorithms.includes(alg)) {
      throw new AuthError(
        'invalid_token',
        `the token's signature algorithm ${JSON.stringify(alg)} is not accepted`,
      );
    }
    const jwks = await keySet();
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: options.issuer,
        audience,
        algorithms,
        clockTolerance: tolerance,
        requiredClaims: ['exp'],
        ...(options.requireAccessTokenType === true ? { typ: 'at+jwt' } : {}),
      });
      return payload;
    } catch (error) {
      throw refusal(error, options.issuer);
    }
  };
}

/**
 * The leeway for `exp`/`nbf`, in seconds (default 30), checked when configured: jose refuses a
 * negative or non-finite one only while verifying, which made every request a 503.
 *
 * @throws {ToolError} `invalid_config` when it is not a finite number, 0 or more.
 * @internal
 */
export function clockTolerance(seconds: number | undefined): number {
  if (seconds === undefined) return 30;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw new ToolError(
      'invalid_config',
      `clockToleranceSec must be a number of seconds, 0 or more (got ${String(seconds)})`,
    );
  }
  return seconds;
}

/** How long a key set that could not be fetched is not asked again (at most the cooldown). */
const FAILED_KEY_SET_BACKOFF_MS = 5_000;

/**
 * The fetch of the key set: an answer that is not 200 with a JSON body is a failure, and for
 * `backoffMs` after one every fetch fails at once with it. jose refetches on every request that
 * needs keys while it has none fresh, and on every unknown `kid` once its cooldown (counted from
 * the last success) is over: without this, each request with a made-up token would cost the
 * issuer a request for as long as its key set fails.
 */
function keySetFetch(inner: typeof fetch, backoffMs: number): typeof fetch {
  const failures = new FailureBackoff(backoffMs);
  return async (input, init) => {
    failures.throwIfHeld();
    const url = input instanceof Request ? input.url : String(input);
    try {
      const response = await inner(input, init);
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        throw new AuthError(
          'unavailable',
          `the key set at ${url} answered HTTP ${String(response.status)}`,
        );
      }
      const text = await response.text();
      try {
        JSON.parse(text);
      } catch (error) {
        throw new AuthError('unavailable', `the key set at ${url} is not JSON`, { cause: error });
      }
      failures.succeeded();
      return new Response(text, { status: 200, headers: response.headers });
    } catch (error) {
      throw failures.fail(error);
    }
  };
}

/** A jose failure as the caller may read it: what was wrong, never the token's content. */
function refusal(error: unknown, issuer: string): AuthError {
  const ours = authErrorIn(error);
  if (ours !== undefined) return ours;
  const invalid = (message: string) => new AuthError('invalid_token', message, { cause: error });
  if (error instanceof errors.JWTExpired) return invalid('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return invalid('the token is not valid yet');
      case 'iat':
        return invalid('the token was issued in the future');
      case 'iss':
        return invalid(`the token was not issued by ${issuer}`);
      case 'aud':
        return invalid('the token was issued for another resource');
      case 'typ':
        return invalid('the token is not typed as an access token (typ "at+jwt")');
      default:
        return invalid(`the token's "${error.claim}" claim is missing or invalid`);
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return invalid('the token signature does not verify');
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return invalid(`the token is signed with a key ${issuer} does not publish`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return invalid("the token's signature algorithm is not accepted");
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return invalid('the token is not a well-formed JWT');
  }
  if (error instanceof errors.JWKSTimeout) {
    return new AuthError('unavailable', `the key set of ${issuer} did not arrive in time`, {
      cause: error,
    });
  }
  return new AuthError('unavailable', `the key set of ${issuer} could not be read`, {
    cause: error,
  });
}
