import { countOr, optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import { createBm25Searcher } from './bm25-searcher.js';
import { checkNumber } from './check-number.js';
import { normOf, toVector, vectorProblem } from './embedding-vectors.js';
import { createQueryVectors } from './query-vectors.js';
import {
  compareHits,
  matchesFilter,
  type SearchDocument,
  type Searcher,
  type SearcherQuery,
  type SearchHit,
} from './searcher.js';
import { fingerprintOf, type VectorCache } from './vector-cache.js';

/**
 * Turns texts into embedding vectors, one per text, all of the same length (any embedding model:
 * a local one, or a provider's API). Called with batches of tool texts and with single queries.
 */
export type EmbedFunction = (
  texts: readonly string[],
  options: {
    readonly signal?: AbortSignal;
    /**
     * Given for a search's query, which has better to do than queue: most milliseconds to wait
     * for a turn (a rate limit's) before asking the model. An embed function that would wait
     * longer rejects at once (`createOpenAiEmbedder` with `rate_limited`).
     */
    readonly maxWaitMs?: number;
  },
) => Promise<readonly (readonly number[] | Float32Array | Float64Array)[]>;

/** Options for {@link createHybridSearcher}. */
export interface HybridSearcherOptions {
  /** The embedding function. */
  readonly embed: EmbedFunction;
  /**
   * Share of the semantic (cosine) score in the blend, from 0 (BM25 only: nothing is embedded)
   * to 1 (embeddings only); default 0.5.
   */
  readonly weight?: number;
  /** The lexical searcher to blend with; default a new {@link createBm25Searcher}. */
  readonly lexical?: Searcher;
  /** Most texts per `embed` call when embedding tools; default 64. */
  readonly batchSize?: number;
  /**
   * Where tool vectors are cached by the fingerprint of their text (and {@link
   * HybridSearcherOptions.cacheKey}), so a restart or a second instance embeds nothing twice.
   */
  readonly cache?: VectorCache;
  /** What else the vectors depend on, e.g. the model and its dimensions; part of the fingerprint. */
  readonly cacheKey?: string;
  /**
   * The length every vector must have (the model's `dimensions`): `embed` returning another is a
   * failure, and nothing of it is cached. Without it, the length is the model's latest answer's.
   * Either way a cached vector of another length is another model's, and is embedded again.
   */
  readonly dimensions?: number;
  /**
   * Never wait for tool vectors (default false): until every tool a search covers has one, the
   * search is lexical and the missing vectors are embedded in the background.
   */
  readonly background?: boolean;
  /**
   * Most milliseconds a search waits for its query's vector, turn and answer (default 2,000):
   * then it goes on by words and `onError` is told. Query vectors are kept by text (the last
   * 512), and one request serves every search waiting for the same text.
   */
  readonly queryWaitMs?: number;
  /**
   * Told when embedding fails, in the background or for a search: that search goes on by words
   * (BM25 alone), and a later one tries again.
   */
  readonly onError?: (error: ToolError) => void;
}

/** A {@link Searcher} that blends BM25 with embedding similarity; see {@link createHybridSearcher}. */
export interface HybridSearcher extends Searcher {
  search(query: SearcherQuery): Promise<readonly SearchHit[]>;
  /**
   * Embeds every tool not embedded yet, so the next search does not wait for it (nothing when
   * `weight` is 0).
   *
   * @throws {ToolError} `execution` when `embed` fails (or the code it failed with, such as
   * `createOpenAiEmbedder`'s `timeout`), `invalid_argument` when it returns vectors of the wrong
   * count or length, `cancelled` when `signal` aborts.
   */
  warm(options?: { readonly signal?: AbortSignal }): Promise<void>;
}

interface Embedded {
  readonly text: string;
  readonly vector: Float32Array;
  readonly norm: number;
}

/** The text a tool is embedded by: what a person would read to understand it. */
function embeddingText(doc: SearchDocument): string {
  const head = doc.title === undefined ? doc.name : `${doc.name} (${doc.title})`;
  const where = doc.namespace === undefined ? '' : `${doc.namespace}: `;
  const tags = doc.tags.length === 0 ? '' : ` [${doc.tags.join(', ')}]`;
  return `${where}${head}${tags}. ${doc.description ?? ''}`.trim();
}

const HYBRID_KEYS = optionKeys<HybridSearcherOptions>({
  embed: true,
  weight: true,
  lexical: true,
  batchSize: true,
  cache: true,
  cacheKey: true,
  dimensions: true,
  background: true,
  queryWaitMs: true,
  onError: true,
});

/**
 * Creates a {@link Searcher} that blends BM25 relevance with the cosine similarity of
 * embeddings from your own `embed` function: `weight · max(0, cos) + (1 − weight) · bm25 / best
 * bm25`. Tools are embedded lazily, on the first search that needs them (or on
 * {@link HybridSearcher.warm}), in batches, and the vectors are cached per tool ID and text, so
 * registration stays synchronous and cheap and a re-registered but unchanged tool is not embedded
 * again. A search never fails because embedding does: it goes on by words and the failure goes
 * to `onError`. Pass it as `createIndex({ searcher })`; `index.search` already returns a promise,
 * so nothing else changes for callers.
 *
 * @throws {ToolError} `invalid_argument` for a weight outside 0–1, a bad batch size, dimensions
 * or query wait.
 */
export function createHybridSearcher(options: HybridSearcherOptions): HybridSearcher {
  refuseUnknownOptions(options, HYBRID_KEYS, 'createHybridSearcher');
  const { embed } = options;
  if (typeof embed !== 'function') {
    throw new ToolError('invalid_argument', 'createHybridSearcher needs an embed function');
  }
  const weight = options.weight ?? 0.5;
  if (!(weight >= 0 && weight <= 1)) {
    throw new ToolError('invalid_argument', `weight must be from 0 to 1, got ${String(weight)}`);
  }
  const batchSize = countOr(options.batchSize, 64, 'batchSize');
  const expected = countOr(options.dimensions, undefined, 'dimensions');
  const queryWaitMs = checkNumber(options.queryWaitMs ?? 2000, 'queryWaitMs', 0, 600_000);
  const lexical = options.lexical ?? createBm25Searcher();
  const { cache, background = false } = options;
  const cacheKey = options.cacheKey ?? '';
  const docs = new Map<string, SearchDocument>();
  const vectors = new Map<string, Embedded>();
  // The length of the model's vectors: `dimensions`, or its latest answer's (undefined until one).
  let length = expected;
  // Counts the times vectors of another length were dropped, so a search can tell it happened.
  let dropped = 0;

  /** The model's vectors are `fresh` long now: every vector of another length is stale. */
  function lengthIs(fresh: number): void {
    if (length === fresh) return;
    length = fresh;
    for (const [id, embedded] of vectors) {
      if (embedded.vector.length !== fresh) vectors.delete(id);
    }
    queryVectors.clear();
    dropped++;
  }

  async function callEmbed(
    texts: readonly string[],
    signal: AbortSignal | undefined,
    maxWaitMs?: number,
  ): Promise<Float32Array[]> {
    let output: readonly unknown[];
    try {
      output = await embed(texts, {
        ...(signal === undefined ? {} : { signal }),
        ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
      });
    } catch (cause) {
      if (signal?.aborted === true) {
        throw new ToolError('cancelled', 'search was cancelled while embedding', { cause });
      }
      if (ToolError.isInstance(cause)) throw cause;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new ToolError('execution', `the embed function failed: ${reason}`, { cause });
    }
    if (signal?.aborted === true) {
      throw new ToolError('cancelled', 'search was cancelled while embedding', {
        cause: signal.reason,
      });
    }
    if (!Array.isArray(output) || output.length !== texts.length) {
      throw new ToolError(
        'invalid_argument',
        `embed returned ${Array.isArray(output) ? output.length : 'no array of'} vectors for ${texts.length} texts`,
      );
    }
    // All as long as `dimensions` asks, or as the first: a model answers with one length.
    const first = toVector(output[0], expected);
    const result = [first, ...output.slice(1).map((value) => toVector(value, first.length))];
    lengthIs(first.length);
    return result;
  }

  /** Embeds the documents passing `filter` that have no vector for their current text. */
  async function embedMissing(
    filter: Pick<SearcherQuery, 'namespace' | 'tags'>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const missing: [string, string][] = [];
    for (const doc of docs.values()) {
      if (!matchesFilter(doc, filter)) continue;
      const text = embeddingText(doc);
      if (vectors.get(doc.id)?.text !== text) missing.push([doc.id, text]);
    }
    const keep = (id: string, text: string, vector: Float32Array | undefined): void => {
      // The tool may have changed or gone while we waited, or the model changed its length;
      // keep only vectors that still fit.
      const doc = docs.get(id);
      if (vector === undefined || doc === undefined || embeddingText(doc) !== text) return;
      if (length !== undefined && vector.length !== length) return;
      vectors.set(id, { text, vector, norm: normOf(vector) });
    };
    for (let start = 0; start < missing.length; start += batchSize) {
      let batch = missing.slice(start, start + batchSize);
      let prints: string[] = [];
      if (cache !== undefined) {
        prints = await Promise.all(batch.map(([, text]) => fingerprintOf(cacheKey, text)));
        const known = await cache.get(prints);
        const rest: [string, string][] = [];
        const restPrints: string[] = [];
        batch.forEach(([id, text], i) => {
          const cached = known.get(prints[i] as string);
          // A vector of another length than the model's is another model's: embedded again.
          if (cached === undefined || vectorProblem(cached, length) !== undefined) {
            rest.push([id, text]);
            restPrints.push(prints[i] as string);
          } else keep(id, text, Float32Array.from(cached));
        });
        [batch, prints] = [rest, restPrints];
        if (batch.length === 0) continue;
      }
      const embedded = await callEmbed(
        batch.map(([, text]) => text),
        signal,
      );
      batch.forEach(([id, text], i) => {
        keep(id, text, embedded[i]);
      });
      if (cache !== undefined) {
        await cache.put(
          embedded.map((vector, i) => ({ fingerprint: prints[i] as string, vector })),
        );
      }
    }
  }

  const report = (error: unknown, what: string): void => {
    options.onError?.(
      ToolError.isInstance(error) ? error : new ToolError('execution', what, { cause: error }),
    );
  };

  // A query's request is shared by the searches that wait for it, so none of them cancels it.
  const queryVectors = createQueryVectors({
    embed: async (text, maxWaitMs) =>
      (await callEmbed([text], undefined, maxWaitMs))[0] as Float32Array,
    waitMs: queryWaitMs,
    onError: (error) => {
      report(error, 'embedding the query failed');
    },
  });

  /** Embeds a search's missing tools: whether they all have vectors now (failures reported). */
  async function embedTools(query: SearcherQuery, signal: AbortSignal | undefined) {
    try {
      await embedMissing(query, signal);
      return true;
    } catch (error) {
      if (signal?.aborted === true) throw error;
      report(error, 'embedding tools failed');
      return false;
    }
  }

  /** Whether a search covering `filter` must stay lexical, starting a background warm if so. */
  let warming: Promise<void> | undefined;
  function notReady(filter: Pick<SearcherQuery, 'namespace' | 'tags'>): boolean {
    let missing = false;
    for (const doc of docs.values()) {
      if (matchesFilter(doc, filter) && vectors.get(doc.id)?.text !== embeddingText(doc)) {
        missing = true;
        break;
      }
    }
    if (missing && warming === undefined) {
      warming = embedMissing({}, undefined)
        .catch((error: unknown) => {
          report(error, 'background embedding failed');
        })
        .finally(() => {
          warming = undefined;
        });
    }
    return missing;
  }

  return {
    upsert(doc) {
      docs.set(doc.id, doc);
      lexical.upsert(doc);
      const cached = vectors.get(doc.id);
      if (cached !== undefined && cached.text !== embeddingText(doc)) vectors.delete(doc.id);
    },

    remove(id) {
      docs.delete(id);
      vectors.delete(id);
      lexical.remove(id);
    },

    // Words' specificity is the lexical searcher's, so a learning searcher around this one
    // weighs its evidence the same way.
    specificity: (term) => lexical.specificity?.(term) ?? 1,

    async warm(warmOptions = {}) {
      if (weight === 0) return;
      await warming;
      await embedMissing({}, warmOptions.signal);
    },

    async search(query) {
      const { signal } = query;
      if (signal?.aborted === true) {
        throw new ToolError('cancelled', 'search was cancelled', { cause: signal.reason });
      }
      if (weight === 0 || (background && notReady(query))) return lexical.search(query);
      if (!background && !(await embedTools(query, signal))) return lexical.search(query);
      const before = dropped;
      const queryVector = await queryVectors.get(query.text, signal);
      if (queryVector === undefined) return lexical.search(query);
      // The query's vector showed the model's length changed: the tools' were dropped.
      if (dropped !== before) {
        const ready = background ? !notReady(query) : await embedTools(query, signal);
        if (!ready) return lexical.search(query);
      }
      const lexicalHits = await lexical.search({ ...query, limit: Math.max(docs.size, 1) });
      const queryNorm = normOf(queryVector);

      const bm25 = new Map<string, number>();
      let best = 0;
      for (const hit of lexicalHits) {
        bm25.set(hit.id, hit.score);
        if (hit.score > best) best = hit.score;
      }
      const hits: SearchHit[] = [];
      for (const doc of docs.values()) {
        if (!matchesFilter(doc, query)) continue;
        const embedded = vectors.get(doc.id);
        let cosine = 0;
        if (
          embedded !== undefined &&
          embedded.vector.length === queryVector.length &&
          embedded.norm > 0 &&
          queryNorm > 0
        ) {
          let dot = 0;
          const { vector } = embedded;
          for (let i = 0; i < vector.length; i++) dot += (vector[i] ?? 0) * (queryVector[i] ?? 0);
          cosine = dot / (embedded.norm * queryNorm);
        }
        const lexicalScore = best > 0 ? (bm25.get(doc.id) ?? 0) / best : 0;
        const score = weight * Math.max(0, cosine) + (1 - weight) * lexicalScore;
        if (score > 0) hits.push({ id: doc.id, score });
      }
      hits.sort(compareHits);
      return hits.slice(0, query.limit);
    },
  };
}
