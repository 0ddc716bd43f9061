// Building Intl formatters and segmenters costs far more than using one, so each is kept; the
// caches are bounded because zones and locales come from tool arguments.
const MAX_CACHED = 64;

/** The value cached under `key`, made (and kept, in a cache of at most 64) when missing. */
export function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, value);
  }
  return value;
}
