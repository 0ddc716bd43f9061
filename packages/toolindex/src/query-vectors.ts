import { followSignal, raceAbort, ToolError } from '@toolplane/toolmodel';

/**
 * How many query vectors are kept, the least recently used dropped first: a few megabytes at
 * most (512 × 1,536 floats), enough for the queries a catalogue is asked again and again.
 */
const KEPT = 512;

/** The query vectors of a hybrid searcher: see {@link createQueryVectors}. */
export interface QueryVectors {
  /**
   * The vector of `text`, or `undefined` when it cannot be had within the wait (told to
   * `onError`): the search goes on by words.
   *
   * @throws {ToolError} `cancelled` when `signal` aborts.
   */
  get(text: string, signal: AbortSignal | undefined): Promise<Float32Array | undefined>;
  /** Forgets every vector kept, e.g. once the model's vectors have another length. */
  clear(): void;
}

/** Options of {@link createQueryVectors}. */
export interface QueryVectorsOptions {
  /** Embeds one query, waiting at most `maxWaitMs` for its turn. */
  readonly embed: (text: string, maxWaitMs: number) => Promise<Float32Array>;
  /** Most milliseconds a search waits for its query's vector. */
  readonly waitMs: number;
  /** Told when embedding fails, and when a search stops waiting. */
  readonly onError: (error: unknown) => void;
}

/**
 * Query vectors by text: the last {@link KEPT} used, and those being embedded, each asked of
 * `embed` once however many searches wait for it. A search waits at most `waitMs`; a request
 * it stops waiting for goes on, and its vector serves the next search of that text. So a flood
 * of one query costs one request, and a slow or hanging endpoint costs each search `waitMs`.
 */
export function createQueryVectors(options: QueryVectorsOptions): QueryVectors {
  const { embed, waitMs, onError } = options;
  const kept = new Map<string, Float32Array>();
  const pending = new Map<string, Promise<Float32Array | undefined>>();

  function start(text: string): Promise<Float32Array | undefined> {
    const work = embed(text, waitMs)
      .then(
        (vector) => {
          kept.set(text, vector);
          // Maps iterate in insertion order: the first key is the least recently used.
          if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
          return vector;
        },
        // Told once here, whether a search still waits or not.
        (error: unknown) => {
          onError(error);
          return undefined;
        },
      )
      .finally(() => {
        pending.delete(text);
      });
    pending.set(text, work);
    return work;
  }

  return {
    async get(text, signal) {
      const known = kept.get(text);
      if (known !== undefined) {
        kept.delete(text);
        kept.set(text, known);
        return known;
      }
      const work = pending.get(text) ?? start(text);
      const { controller, unlink } = followSignal(signal);
      const timer = setTimeout(() => {
        controller.abort();
      }, waitMs);
      try {
        return await raceAbort(work, controller.signal);
      } catch (error) {
        if (signal?.aborted === true) {
          throw new ToolError('cancelled', 'search was cancelled while embedding', {
            cause: error,
          });
        }
        onError(
          new ToolError(
            'timeout',
            `the query's embedding took longer than ${waitMs} ms (queryWaitMs): searching by words`,
          ),
        );
        return undefined;
      } finally {
        clearTimeout(timer);
        unlink();
      }
    },
    clear() {
      kept.clear();
    },
  };
}
