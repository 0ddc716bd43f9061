import type { FetchLike } from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import { limitBody } from '@toolplane/toolmodel/wire';

/** Bounds of one OAuth run's requests; see {@link guardOAuthFetch}. */
export interface OAuthFetchBounds {
  /** The connector's server name, for messages. */
  readonly server: string;
  /** Give up on one request (answer and body) after this long. */
  readonly timeoutMs: number;
  /** Refuse an answer body larger than this. */
  readonly maxBytes: number;
  /** Cancels every request of the run. */
  readonly signal?: AbortSignal | undefined;
}

/** A fetch for one OAuth run, and the typed error that ended the run, if one did. */
export interface GuardedOAuthFetch {
  readonly fetch: FetchLike;
  /** The first request that failed (timeout, network, oversized body): what to tell the user. */
  readonly failure: ToolError | undefined;
  /** The last request made, as `METHOD origin/path` (no query: it may carry secrets). */
  readonly last: string | undefined;
}

/**
 * Wraps the fetch an OAuth run (discovery, registration, token requests) uses, so a hostile or
 * broken authorization server cannot hang a connector or exhaust its memory: each request gets
 * `timeoutMs` for its answer and body, and an answer past `maxBytes` is refused. The SDK swallows
 * some failures (a protected resource metadata document that could not be fetched makes it fall
 * back to the server's origin), so the first failure is kept in {@link GuardedOAuthFetch.failure}
 * and every later request of the run fails at once with it: the run ends after one timeout, and
 * the caller reports that failure rather than whatever the SDK made of it.
 */
export function guardOAuthFetch(inner: FetchLike, bounds: OAuthFetchBounds): GuardedOAuthFetch {
  let failure: ToolError | undefined;
  let last: string | undefined;
  const fail = (error: ToolError): ToolError => {
    failure ??= error;
    return error;
  };
  const guarded: FetchLike = async (input, init) => {
    if (failure !== undefined) throw failure;
    const url = new URL(input instanceof Request ? input.url : String(input));
    const where = `${(init?.method ?? 'GET').toUpperCase()} ${url.origin}${url.pathname}`;
    last = where;
    const timeout = AbortSignal.timeout(bounds.timeoutMs);
    const signal = AbortSignal.any(
      [timeout, init?.signal, bounds.signal].filter(
        (s): s is AbortSignal => s instanceof AbortSignal,
      ),
    );
    const failed = (error: unknown): ToolError => {
      if (ToolError.isInstance(error)) return fail(error);
      if (bounds.signal?.aborted === true || init?.signal?.aborted === true) {
        return fail(
          new ToolError(
            'cancelled',
            `authorization for MCP server "${bounds.server}" was cancelled`,
            {
              cause: error,
            },
          ),
        );
      }
      if (timeout.aborted) {
        return fail(
          new ToolError(
            'timeout',
            `authorization for MCP server "${bounds.server}": ${where} did not answer within ${String(bounds.timeoutMs)} ms`,
            { cause: error },
          ),
        );
      }
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      const why = cause instanceof Error ? cause.message : String(cause);
      return fail(
        new ToolError(
          'connector_unavailable',
          `authorization for MCP server "${bounds.server}": ${where} failed (${why.slice(0, 200)})`,
          { cause: error },
        ),
      );
    };
    let response: Response;
    try {
      response = await inner(input, { ...init, signal });
    } catch (error) {
      throw failed(error);
    }
    const tooLarge = () =>
      fail(
        new ToolError(
          'resource_exhausted',
          `authorization for MCP server "${bounds.server}": the answer to ${where} is larger than ${String(bounds.maxBytes)} bytes`,
        ),
      );
    // Reading the body fails with the typed error, not with what the stream was aborted with.
    return limitBody(response, bounds.maxBytes, { tooLarge, failed, signal });
  };
  return {
    fetch: guarded,
    get failure() {
      return failure;
    },
    get last() {
      return last;
    },
  };
}
