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
    const response = await inner(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const tooLarge = () =>
      new AuthError(
        'unavailable',
        `the answer of ${url} is larger than ${String(maxBytes)} bytes; it is not read`,
      );
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const body = response.body;
    // A status that cannot have a body (204, 304, …) cannot be rebuilt with one either.
    if (body === null || [101, 204, 205, 304].includes(response.status)) return response;
    let seen = 0;
    const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
    const limited = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen > maxBytes) {
          await reader.cancel().catch(() => undefined);
          controller.error(tooLarge());
          return;
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The AuthError a failure carries (itself, or its `cause`), when it is one. */
export function authErrorIn(error: unknown): AuthError | undefined {
  if (AuthError.isAuthError(error)) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  return AuthError.isAuthError(cause) ? cause : undefined;
}
