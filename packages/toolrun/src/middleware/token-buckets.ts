interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * Token buckets by key (bursts up to `limit`, refilled evenly over `interval` ms), holding only
 * keys used within the last `interval`: a bucket untouched that long has refilled to full, the
 * same as a new one, so it is dropped. Keys may come from callers (one per user, per session):
 * the table stays as small as the keys in use.
 */
export class TokenBuckets {
  readonly #limit: number;
  readonly #interval: number;
  readonly #perMs: number;
  // Least recently used first: a key used is moved to the end, so the stale ones are in front.
  readonly #buckets = new Map<string, Bucket>();

  constructor(limit: number, interval: number) {
    this.#limit = limit;
    this.#interval = interval;
    this.#perMs = limit / interval;
  }

  /** How many keys are held. */
  get size(): number {
    return this.#buckets.size;
  }

  /**
   * Takes one token from `key`'s bucket at `time`: 0 when granted, else how many milliseconds
   * until one is there.
   */
  take(key: string, time: number): number {
    this.#evict(time);
    const found = this.#buckets.get(key);
    let bucket: Bucket;
    if (found === undefined) {
      bucket = { tokens: this.#limit, updated: time };
    } else {
      bucket = found;
      bucket.tokens = Math.min(this.#limit, bucket.tokens + (time - bucket.updated) * this.#perMs);
      bucket.updated = time;
      this.#buckets.delete(key);
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return Math.ceil((1 - bucket.tokens) / this.#perMs);
    bucket.tokens -= 1;
    return 0;
  }

  #evict(time: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (time - bucket.updated < this.#interval) return;
      this.#buckets.delete(key);
    }
  }
}
