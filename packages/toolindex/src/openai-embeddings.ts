import {
  checkDuration,
  countOr,
  followSignal,
  isPlainObject,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import { vectorProblem } from './embedding-vectors.js';
import type { EmbedFunction } from './hybrid-searcher.js';

/** Options for {@link createOpenAiEmbedder}. */
export interface OpenAiEmbedderOptions {
  /**
   * The endpoint: a base URL such as `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`
   * (`/embeddings` is appended to its path, its query string kept), or the full URL of the
   * embeddings route.
   */
  readonly url: string;
  readonly model: string;
  /** Sent as a bearer token; none for local servers that need none. */
  readonly apiKey?: string;
  /** Asks the model for vectors of this length (models that support it). */
  readonly dimensions?: number;
  /** Most texts per request (default 64). */
  readonly batchSize?: number;
  /** Most requests per minute; requests beyond wait their turn (default 300). */
  readonly requestsPerMinute?: number;
  /** Retries of a request that failed with 408, 429, 5xx or a network error (default 3). */
  readonly retries?: number;
  /** Wait before the first retry, doubled each time, unless `Retry-After` says (default 500). */
  readonly retryDelayMs?: number;
  /**
   * Most milliseconds one request may take, from sending it to the last byte of its answer
   * (default 30,000). A request past it fails with `timeout` and is not retried: an endpoint
   * that hangs holds nothing up for longer, and the next embedding asks it afresh.
   */
  readonly timeoutMs?: number;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

const MAX_RETRY_WAIT_MS = 30_000;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new ToolError('cancelled', 'embedding was cancelled', { cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ToolError('cancelled', 'embedding was cancelled', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const EMBEDDER_KEYS = optionKeys<OpenAiEmbedderOptions>({
  url: true,
  model: true,
  apiKey: true,
  dimensions: true,
  batchSize: true,
  requestsPerMinute: true,
  retries: true,
  retryDelayMs: true,
  timeoutMs: true,
  fetch: true,
});

/**
 * An {@link EmbedFunction} for any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, LM
 * Studio, vLLM, a gateway): texts go in batches of `batchSize`, requests are spaced to stay
 * under `requestsPerMinute`, each takes at most `timeoutMs`, and a request failing with 408, 429,
 * a 5xx status or a network error is retried with exponential back-off (honouring `Retry-After`). Retry and spacing are a
 * few lines here rather than a dependency: p-retry's current major needs Node 22, and the core
 * package keeps its dependencies to what every user needs.
 *
 * @throws {ToolError} `invalid_argument` for bad options. The function rejects with `execution`
 * when the endpoint fails after its retries or answers with something other than one vector per
 * text (a body that is not JSON, the wrong number of vectors, a vector of the wrong length), and
 * `timeout` when a request takes longer than `timeoutMs`, `rate_limited` when its turn is further
 * away than the call's `maxWaitMs`, and `cancelled` when the signal aborts.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): EmbedFunction {
  refuseUnknownOptions(options, EMBEDDER_KEYS, 'createOpenAiEmbedder', {
    instead: {
      api_key: 'did you mean "apiKey"?',
      baseURL: 'did you mean "url"?',
      baseUrl: 'did you mean "url"?',
    },
  });
  let endpoint: URL;
  try {
    endpoint = new URL(options.url);
  } catch (cause) {
    throw new ToolError('invalid_argument', `url must be an absolute URL, got ${options.url}`, {
      cause,
    });
  }
  if (!endpoint.pathname.endsWith('/embeddings')) {
    // Only the path changes: a query string (Azure's `?api-version=…`) is part of the route.
    endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/embeddings`;
  }
  if (typeof options.model !== 'string' || options.model === '') {
    throw new ToolError('invalid_argument', 'model must be a non-empty string');
  }
  const batchSize = countOr(options.batchSize, 64, 'batchSize');
  const perMinute = countOr(options.requestsPerMinute, 300, 'requestsPerMinute');
  const spacingMs = 60_000 / perMinute;
  const retries = countOr(options.retries, 3, 'retries', { min: 0 });
  const retryDelay = options.retryDelayMs ?? 500;
  checkDuration(retryDelay, 'retryDelayMs');
  const timeoutMs = countOr(options.timeoutMs, 30_000, 'timeoutMs');
  checkDuration(timeoutMs, 'timeoutMs');
  const dimensions = countOr(options.dimensions, undefined, 'dimensions');
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey !== undefined && options.apiKey !== '') {
    headers.authorization = `Bearer ${options.apiKey}`;
  }
  // The endpoint as messages name it: without its query string, which may carry a key.
  const where = `${endpoint.origin}${endpoint.pathname}`;
  // The earliest moment the next request may start; each request moves it on by the spacing.
  let nextSlot = 0;

  /** The endpoint's answer to one batch, parsed. */
  async function request(
    texts: readonly string[],
    signal: AbortSignal | undefined,
    maxWaitMs: number | undefined,
  ): Promise<unknown> {
    const body = JSON.stringify({
      model: options.model,
      input: texts,
      encoding_format: 'float',
      ...(dimensions === undefined ? {} : { dimensions }),
    });
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      const start = Math.max(now, nextSlot);
      // A caller that cannot wait that long gives up before it takes a turn from the others.
      if (maxWaitMs !== undefined && start - now > maxWaitMs) {
        throw new ToolError(
          'rate_limited',
          `requests to the embeddings endpoint ${where} are queued longer than ${maxWaitMs} ms (requestsPerMinute: ${perMinute})`,
        );
      }
      nextSlot = start + spacingMs;
      if (start > now) await sleep(start - now, signal);
      let response: Response | undefined;
      let text: string | undefined;
      let failure: unknown;
      // The caller's signal, and this request's time: answer and body both.
      const { controller, unlink } = followSignal(signal);
      const timer = setTimeout(() => {
        controller.abort();
      }, timeoutMs);
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers,
          body,
          signal: controller.signal,
        });
        // Read whole here, so a body cut short is a network error like any other.
        text = await response.text();
      } catch (error) {
        if (signal?.aborted === true) {
          throw new ToolError('cancelled', 'embedding was cancelled', { cause: error });
        }
        if (controller.signal.aborted) {
          throw new ToolError(
            'timeout',
            `the embeddings endpoint ${where} did not answer within ${timeoutMs} ms (timeoutMs)`,
            { cause: error },
          );
        }
        failure = error;
      } finally {
        clearTimeout(timer);
        unlink();
      }
      if (response?.ok === true && text !== undefined) return parse(text);
      const status = text === undefined ? undefined : response?.status;
      const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
      if (!retryable || attempt >= retries) {
        const detail = text === undefined ? '' : `: ${text.slice(0, 200)}`;
        throw new ToolError(
          'execution',
          `the embeddings endpoint ${where} failed (${status === undefined ? 'network error' : `HTTP ${status}`}${detail})`,
          { cause: failure },
        );
      }
      const wait =
        retryAfterMs(response?.headers.get('retry-after') ?? null) ?? retryDelay * 2 ** attempt;
      await sleep(Math.min(wait, MAX_RETRY_WAIT_MS), signal);
    }
  }

  function parse(text: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new ToolError(
        'execution',
        `the embeddings endpoint ${where} answered with a body that is not JSON: ${text.slice(0, 100)}`,
        { cause },
      );
    }
  }

  /** The vectors of one answer, in the order of the texts asked. */
  function vectorsOf(answer: unknown, count: number, length: number | undefined): number[][] {
    const data = isPlainObject(answer) ? answer.data : undefined;
    if (!Array.isArray(data) || data.length !== count) {
      throw new ToolError(
        'execution',
        `the embeddings endpoint ${where} returned ${Array.isArray(data) ? data.length : 'no list of'} vectors for ${count} texts`,
      );
    }
    const items = data.map((item: unknown) => (isPlainObject(item) ? item : {}));
    const at = (item: Record<string, unknown>): number =>
      typeof item.index === 'number' ? item.index : 0;
    items.sort((a, b) => at(a) - at(b));
    let expected = length;
    return items.map((item) => {
      const problem = vectorProblem(item.embedding, expected);
      if (problem !== undefined) {
        throw new ToolError(
          'execution',
          `the embeddings endpoint ${where} returned a vector that ${problem}`,
        );
      }
      const vector = item.embedding as number[];
      expected ??= vector.length;
      return vector;
    });
  }

  return async (texts, { signal, maxWaitMs }) => {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize);
      const answer = await request(batch, signal, maxWaitMs);
      // Every vector as long as `dimensions` asks, or as the first one.
      vectors.push(...vectorsOf(answer, batch.length, dimensions ?? vectors[0]?.length));
    }
    return vectors;
  };
}
