/** Statuses whose answers have no body, and cannot be rebuilt with one. */
const NO_BODY: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** How {@link limitBody} fails, and when it stops reading. */
export interface LimitBodyOptions {
  /** The error of a body past the bound (declared, or found while it is read). */
  readonly tooLarge: () => Error;
  /** What a failure to read the body becomes (a timeout, a reset); as it is when absent. */
  readonly failed?: (error: unknown) => Error;
  /** Ends the read (failing it through `failed`), whether or not the body's source heeds it. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * `response` with its body bounded to `maxBytes`: an answer that declares a longer
 * `content-length` is refused at once (its body cancelled), and reading past the bound fails
 * with `tooLarge()`, so a broken or hostile server cannot make its reader hold more than that.
 * An answer that cannot have a body (204, 304, …) is returned as it is.
 *
 * @throws what `tooLarge()` makes, when the declared length is past the bound.
 */
export async function limitBody(
  response: Response,
  maxBytes: number,
  options: LimitBodyOptions,
): Promise<Response> {
  const { tooLarge, failed, signal } = options;
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const body = response.body;
  if (body === null || NO_BODY.has(response.status)) return response;
  let seen = 0;
  const source =
    signal === undefined
      ? body
      : body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), { signal });
  const reader: ReadableStreamDefaultReader<Uint8Array> = source.getReader();
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await reader.read().catch((error: unknown) => {
        controller.error(failed === undefined ? error : failed(error));
        return undefined;
      });
      if (read === undefined) return;
      if (read.done) {
        controller.close();
        return;
      }
      seen += read.value.byteLength;
      if (seen > maxBytes) {
        await reader.cancel().catch(() => undefined);
        controller.error(tooLarge());
        return;
      }
      controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(limited, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
