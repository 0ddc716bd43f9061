/** A store of embedding vectors by fingerprint; see {@link createMemoryVectorCache}. */
export interface VectorCache {
  /** The vectors known for these fingerprints; unknown ones are left out. */
  get(fingerprints: readonly string[]): Promise<ReadonlyMap<string, ArrayLike<number>>>;
  /** Keeps these vectors. */
  put(entries: readonly { fingerprint: string; vector: ArrayLike<number> }[]): Promise<void>;
}

/** A {@link VectorCache} in memory, for tests and a single process. */
export function createMemoryVectorCache(): VectorCache {
  const vectors = new Map<string, Float32Array>();
  return {
    get: (fingerprints) => {
      const found = new Map<string, Float32Array>();
      for (const key of fingerprints) {
        const vector = vectors.get(key);
        if (vector !== undefined) found.set(key, vector);
      }
      return Promise.resolve(found);
    },
    put: (entries) => {
      for (const { fingerprint, vector } of entries) {
        vectors.set(fingerprint, Float32Array.from(vector));
      }
      return Promise.resolve();
    },
  };
}

/** SHA-256 of the text and what else its vector depends on, as hex (Web Crypto: any runtime). */
export async function fingerprintOf(cacheKey: string, text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${cacheKey}\u0000${text}`),
  );
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
