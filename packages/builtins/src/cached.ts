import { LRUCache } from 'lru-cache';

// Building Intl formatters and segmenters costs far more than using one, so each is kept. Zones
// and locales come from tool arguments: every cache is a bounded LRU, keyed by what Intl resolves
// a spelling to (`europe/PARIS` is `Europe/Paris`), so a thousand spellings hold one formatter.

/** A least-recently-used cache of at most `max` entries. */
export function boundedCache<T extends object | string>(max: number): LRUCache<string, T> {
  return new LRUCache<string, T>({ max });
}

/** The value cached under `key`, made (and kept, evicting the least recently used) when missing. */
export function cached<T extends object | string>(
  cache: LRUCache<string, T>,
  key: string,
  make: () => T,
): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

const locales = boundedCache<string>(256);

/**
 * The locale Intl resolves `tag` to for segmentation (`en-x-anything` is `en`): the key of the
 * segmenter caches, so that distinct spellings share one segmenter.
 *
 * @throws {RangeError} for a malformed tag.
 */
export function resolvedLocale(tag: string): string {
  return cached(locales, tag, () => new Intl.Segmenter(tag).resolvedOptions().locale);
}
