import { ToolError } from '@toolplane/toolmodel';
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
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

interface EmbeddingItem {
  readonly index?: number;
  readonly embedding?: unknown;
}

interface EmbeddingsResponse {
  readonly data?: unknown;
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

/**
 * An {@link EmbedFunction} for any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, LM
 * Studio, vLLM, a gateway): texts go in batches of `batchSize`, requests are spaced to stay
 * under `requestsPerMinute`, and a request failing with 408, 429, a 5xx status or a network
 * error is retried with exponential back-off (honouring `Retry-After`). Retry and spacing are a
 * few lines here rather than a dependency: p-retry's current major needs Node 22, and the core
 * package keeps its dependencies to what every user needs.
 *
 * @throws {ToolError} `invalid_argument` for bad options. The function rejects with `execution`
 * when the endpoint fails after its retries, `invalid_argument` when it answers with the wrong
 * number or shape of vectors, and `cancelled` when the signal aborts.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): EmbedFunction {
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
  const positive = (value: number, name: string): number => {
    if (!Number.isInteger(value) || value < 1) {
      throw new ToolError('invalid_argument', `${name} must be a positive integer, got ${value}`);
    }
    return value;
  };
  if (typeof options.model !== 'string' || options.model === '') {
    throw new ToolError('invalid_argument', 'model must be a non-empty string');
  }
  const batchSize = positive(options.batchSize ?? 64, 'batchSize');
  const spacingMs = 60_000 / positive(options.requestsPerMinute ?? 300, 'requestsPerMinute');
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new ToolError('invalid_argument', `retries must be an integer ≥ 0, got ${retries}`);
  }
  const retryDelay = options.retryDelayMs ?? 500;
  const dimensions =
    options.dimensions === undefined ? undefined : positive(options.dimensions, 'dimensions');
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey !== undefined && options.apiKey !== '') {
    headers.authorization = `Bearer ${options.apiKey}`;
  }
  // The earliest moment the next request may start; each request moves it on by the spacing.
  let nextSlot = 0;

  async function request(
    texts: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<EmbeddingsResponse> {
    const body = JSON.stringify({
      model: options.model,
      input: texts,
      encoding_format: 'float',
      ...(dimensions === undefined ? {} : { dimensions }),
    });
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      const start = Math.max(now, nextSlot);
      nextSlot = start + spacingMs;
      if (start > now) await sleep(start - now, signal);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers,
          body,
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        if (signal?.aborted === true) {
          throw new ToolError('cancelled', 'embedding was cancelled', { cause: error });
        }
        failure = error;
      }
      if (response?.ok === true) return (await response.json()) as EmbeddingsResponse;
      const status = response?.status;
      const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
      if (!retryable || attempt >= retries) {
        const detail = response === undefined ? '' : `: ${(await response.text()).slice(0, 200)}`;
        throw new ToolError(
          'execution',
          `the embeddings endpoint ${endpoint.origin} failed (${status === undefined ? 'network error' : `HTTP ${status}`}${detail})`,
          { cause: failure },
        );
      }
      const wait =
        retryAfterMs(response?.headers.get('retry-after') ?? null) ?? retryDelay * 2 ** attempt;
      await sleep(Math.min(wait, MAX_RETRY_WAIT_MS), signal);
    }
  }

  return async (texts, { signal }) => {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize);
      const { data } = await request(batch, signal);
      const items: readonly EmbeddingItem[] = Array.isArray(data) ? (data as EmbeddingItem[]) : [];
      if (items.length !== batch.length) {
        throw new ToolError(
          'invalid_argument',
          `the embeddings endpoint returned ${items.length} vectors for ${batch.length} texts`,
        );
      }
      const ordered = [...items].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      for (const item of ordered) {
        if (!Array.isArray(item.embedding)) {
          throw new ToolError('invalid_argument', 'the embeddings endpoint returned a non-vector');
        }
        vectors.push(item.embedding as number[]);
      }
    }
    return vectors;
  };
}
