// Stand-ins for the SDK server's per-connection maps and sets that most gateway sessions never
// write to (responses to server-to-client requests, their progress and timeouts, debounced
// notifications): an empty Map or Set already holds a hash table of its own, some 200 bytes, and
// an open session kept six of them. These allocate the real collection on the first write.

/** A `Map` whose table is made on the first `set`; reads of an empty one allocate nothing. */
export class LazyMap<K, V> {
  private inner: Map<K, V> | undefined;

  get size(): number {
    return this.inner?.size ?? 0;
  }

  get(key: K): V | undefined {
    return this.inner?.get(key);
  }

  has(key: K): boolean {
    return this.inner?.has(key) ?? false;
  }

  set(key: K, value: V): this {
    (this.inner ??= new Map()).set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.inner?.delete(key) ?? false;
  }

  clear(): void {
    this.inner?.clear();
  }

  forEach(each: (value: V, key: K, map: Map<K, V>) => void): void {
    this.inner?.forEach(each);
  }

  keys(): MapIterator<K> {
    return (this.inner ?? EMPTY_MAP).keys() as MapIterator<K>;
  }

  values(): MapIterator<V> {
    return (this.inner ?? EMPTY_MAP).values() as MapIterator<V>;
  }

  entries(): MapIterator<[K, V]> {
    return (this.inner ?? EMPTY_MAP).entries() as MapIterator<[K, V]>;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}

/** A `Set` whose table is made on the first `add`; reads of an empty one allocate nothing. */
export class LazySet<T> {
  private inner: Set<T> | undefined;

  get size(): number {
    return this.inner?.size ?? 0;
  }

  has(value: T): boolean {
    return this.inner?.has(value) ?? false;
  }

  add(value: T): this {
    (this.inner ??= new Set()).add(value);
    return this;
  }

  delete(value: T): boolean {
    return this.inner?.delete(value) ?? false;
  }

  clear(): void {
    this.inner?.clear();
  }

  forEach(each: (value: T, again: T, set: Set<T>) => void): void {
    this.inner?.forEach(each);
  }

  values(): SetIterator<T> {
    return (this.inner ?? EMPTY_SET).values() as SetIterator<T>;
  }

  keys(): SetIterator<T> {
    return this.values();
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.values();
  }
}

/** Iterated in place of a collection never written to; nothing ever adds to them. */
const EMPTY_MAP: ReadonlyMap<unknown, unknown> = new Map();
const EMPTY_SET: ReadonlySet<unknown> = new Set();

/**
 * Replaces each of `fields` on `target` that holds an empty `Map` or `Set` with a lazy one. A
 * field that is missing, not empty or of another kind is left alone (another SDK version).
 */
export function makeLazy(target: object, fields: readonly string[]): void {
  const record = target as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (value instanceof Map && value.size === 0) record[field] = new LazyMap();
    else if (value instanceof Set && value.size === 0) record[field] = new LazySet();
  }
}
