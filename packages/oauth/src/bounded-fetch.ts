import { limitBody } from '@toolplane/toolmodel/wire';
import { AuthError } from './errors.js';

/**
 * The most an answer of the authorization server (metadata, key set, introspection) may weigh:
 * real ones are a few kilobytes, and a server that sends more (broken or hostile) must not make
 * the gateway hold gigabytes in memory until a timeout.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * `inner`, with every answer's body cut off past `maxBytes`: reading more fails with an
 * {@link AuthError} `unavailable` that names the URL (never a token: the URLs are the issuer's
 * endpoints).
 */
export function boundedFetch(inner: typeof fetch, maxBytes = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return limitBody(await inner(input, init), maxBytes, {
      tooLarge: () =>
        new AuthError(
          'unavailable',
          `the answer of ${url} is larger than ${String(maxBytes)} bytes; it is not read`,
        ),
    });
  };
}

/** The AuthError a failure carries (itself, or its `cause`), when it is one. */
export function authErrorIn(error: unknown): AuthError | undefined {
  if (AuthError.isAuthError(error)) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  return AuthError.isAuthError(cause) ? cause : undefined;
}
