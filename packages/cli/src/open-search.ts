// The searcher a config asks for: BM25, blended with embeddings when `search.embeddings` is set,
// wrapped in learning from use unless `search.learn` is false. Evidence and vectors live beside
// the user store (the same SQLite file or PostgreSQL schema), so a restart or a fleet shares them.
import {
  createBm25Searcher,
  createHybridSearcher,
  createLearningSearcher,
  createOpenAiEmbedder,
  type HybridSearcher,
  type Searcher,
} from '@toolplane/toolindex';
import type { ToolError } from '@toolplane/toolmodel';
import type { SearchConfig } from './config.js';
import type { Closable, StoreFamily } from './stores/store-family.js';

/** A configured searcher and what it holds open. */
export interface OpenSearch {
  /** `undefined` when the config asks for plain BM25 (the toolkit's default). */
  readonly searcher: Searcher | undefined;
  /**
   * Settles once learned evidence is loaded and every tool has its vector, for a one-shot search
   * that should not be lexical only; a server never waits for it. Failures go to `onError`.
   */
  warm(options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** Writes what was learned and closes the stores it opened. Idempotent. */
  close(): Promise<void>;
}

/**
 * Builds the searcher `search` describes over the stores of `family` (the toolkit's own, so on
 * PostgreSQL they share its pool). Embedding never blocks a
 * list or a call: vectors are made in the background, and until a search's tools all have one
 * it is lexical. Failures of the embeddings endpoint or of the stores go to `onError`; search
 * goes on without them.
 *
 * @throws {ToolError} `store_error` when a store cannot be opened; `invalid_argument` for bad
 * embeddings options.
 */
export async function openSearch(
  search: SearchConfig,
  family: StoreFamily,
  onError: (error: ToolError) => void,
): Promise<OpenSearch> {
  const { embeddings } = search;
  if (!search.learn && embeddings === undefined) {
    return { searcher: undefined, warm: () => Promise.resolve(), close: () => Promise.resolve() };
  }
  const opened: Closable<object>[] = [];
  try {
    let inner: Searcher = createBm25Searcher();
    let hybrid: HybridSearcher | undefined;
    const warmVectors = async (options: { readonly signal?: AbortSignal } = {}) => {
      try {
        await hybrid?.warm(options);
      } catch (error) {
        onError(error as ToolError);
      }
    };
    if (embeddings !== undefined) {
      const { url, model, apiKey, dimensions, weight, batchSize, requestsPerMinute } = embeddings;
      const { timeoutMs, queryWaitMs } = embeddings;
      const cache = await family.vectorCache();
      opened.push(cache);
      inner = hybrid = createHybridSearcher({
        lexical: inner,
        embed: createOpenAiEmbedder({
          url,
          model,
          ...(apiKey === undefined ? {} : { apiKey }),
          ...(dimensions === undefined ? {} : { dimensions }),
          ...(batchSize === undefined ? {} : { batchSize }),
          ...(requestsPerMinute === undefined ? {} : { requestsPerMinute }),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
        }),
        cache,
        // Vectors depend on the model and their length, not on the endpoint serving them.
        cacheKey: `${model}\u0000${String(dimensions ?? '')}`,
        background: true,
        onError,
        // So a cached vector of another length (cached before, or another model's) is embedded
        // again at once, and an answer of another length is never cached.
        ...(dimensions === undefined ? {} : { dimensions }),
        ...(weight === undefined ? {} : { weight }),
        ...(batchSize === undefined ? {} : { batchSize }),
        ...(queryWaitMs === undefined ? {} : { queryWaitMs }),
      });
    }
    if (!search.learn) {
      return { searcher: inner, warm: warmVectors, close: () => closeAll(opened) };
    }
    const evidence = await family.evidenceStore({ onError });
    opened.push(evidence);
    const learner = createLearningSearcher({ searcher: inner, store: evidence, onError });
    let closed: Promise<void> | undefined;
    return {
      searcher: learner,
      warm: async (options) => {
        await learner.ready;
        await warmVectors(options);
      },
      close: () =>
        (closed ??= (async () => {
          await learner.flush();
          await closeAll(opened);
        })()),
    };
  } catch (error) {
    await closeAll(opened);
    throw error;
  }
}

async function closeAll(opened: readonly Closable<object>[]): Promise<void> {
  for (const item of opened) await item.close?.();
}
