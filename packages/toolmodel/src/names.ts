import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { shownValue } from './text.js';

/**
 * What every exposed tool name matches: the rule OpenAI's and Anthropic's tool APIs accept, and
 * what the gateway and every framework adapter expose tools by.
 */
export const EXPOSED_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The separator between namespace and name unless `separator` says otherwise. */
export const DEFAULT_SEPARATOR = '__';

const MAX_LENGTH = 64;

/**
 * Why `separator` cannot join a namespace and a name into an exposed name, or `undefined` when it
 * can (the empty string included): it must be a string of {@link EXPOSED_NAME_PATTERN}'s
 * characters. With any other, no namespaced name matches the pattern as it is, so
 * {@link NameTable} shortens every one with a hash (`fx_add_efd51e28`), and nothing says why.
 * The problem reads after the option's name: `separator ${problem}`.
 */
export function separatorProblem(separator: unknown): string | undefined {
  if (typeof separator !== 'string') return `must be a string, got ${shownValue(separator)}`;
  if (separator === '' || EXPOSED_NAME_PATTERN.test(separator)) return undefined;
  return `must be 1 to ${MAX_LENGTH} of A-Z a-z 0-9 _ - (the characters of an exposed tool name), got ${shownValue(separator)}`;
}

const FIRST_HASH_LENGTH = 8;
const HASH_STEP = 4;
// The name is then `_` and the hash alone, which is always valid and unique per key.
const MAX_HASH_LENGTH = MAX_LENGTH - 1;

/** An item a {@link NameTable} names: a name within a namespace. */
export interface NamedItem {
  readonly namespace: string;
  readonly name: string;
}

/** How {@link NameTable.build} forms exposed names. */
export interface NamingOptions {
  /** Between namespace and name (default {@link DEFAULT_SEPARATOR}). */
  readonly separator?: string;
  /** The namespace whose items are exposed without a prefix. */
  readonly transparent?: string;
}

/**
 * A two-way mapping between items and the provider-legal names a gateway or a framework adapter
 * exposes them by.
 *
 * Each item is `namespace + separator + name` when that matches {@link EXPOSED_NAME_PATTERN}
 * and no other item wants the same name. Otherwise it is shortened to the pattern, with a suffix
 * of its key's SHA-256 that grows until every name is unique, so the mapping depends only on the
 * set of items, never on their order.
 */
export class NameTable<T extends NamedItem> {
  readonly #byName: ReadonlyMap<string, T>;
  readonly #byKey: ReadonlyMap<string, string>;

  private constructor(byName: Map<string, T>, byKey: Map<string, string>) {
    this.#byName = byName;
    this.#byKey = byKey;
  }

  /** Names every item; an item listed twice (same namespace and name) keeps its first entry. */
  static build<T extends NamedItem>(items: Iterable<T>, options: NamingOptions = {}): NameTable<T> {
    const separator = options.separator ?? DEFAULT_SEPARATOR;
    const unique = new Map<string, T>();
    for (const item of items) {
      const key = keyOf(item);
      if (!unique.has(key)) unique.set(key, item);
    }
    // 0 means the plain name; otherwise the length of the hash suffix.
    const hashLength = new Map<string, number>();
    const plain = new Map<string, string>();
    for (const [key, item] of unique) {
      const name =
        item.namespace === options.transparent ? item.name : item.namespace + separator + item.name;
      plain.set(key, name);
      hashLength.set(key, EXPOSED_NAME_PATTERN.test(name) ? 0 : FIRST_HASH_LENGTH);
    }
    const nameOf = (key: string): string => {
      const length = hashLength.get(key) ?? 0;
      const name = plain.get(key) ?? '';
      return length === 0 ? name : hashed(name, key, length);
    };
    for (;;) {
      const claims = new Map<string, string[]>();
      for (const key of unique.keys()) {
        const name = nameOf(key);
        const claimants = claims.get(name);
        if (claimants === undefined) claims.set(name, [key]);
        else claimants.push(key);
      }
      let collided = false;
      for (const keys of claims.values()) {
        if (keys.length < 2) continue;
        collided = true;
        // Every claimant moves on, so the winner never depends on the order of the items.
        for (const key of keys) {
          const length = hashLength.get(key) ?? 0;
          hashLength.set(
            key,
            length === 0 ? FIRST_HASH_LENGTH : Math.min(MAX_HASH_LENGTH, length + HASH_STEP),
          );
        }
      }
      if (!collided) break;
    }
    const byName = new Map<string, T>();
    const byKey = new Map<string, string>();
    for (const [key, item] of unique) {
      const name = nameOf(key);
      byName.set(name, item);
      byKey.set(key, name);
    }
    return new NameTable(byName, byKey);
  }

  /** How many items the table names. */
  get size(): number {
    return this.#byName.size;
  }

  /** The exposed name of an item, or `undefined` when it is not in the table. */
  nameOf(item: NamedItem): string | undefined {
    return this.#byKey.get(keyOf(item));
  }

  /** The item exposed as `name`, or `undefined`. */
  resolve(name: string): T | undefined {
    return this.#byName.get(name);
  }

  /** Every exposed name and its item, in ascending name order. */
  entries(): [string, T][] {
    return [...this.#byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

function keyOf(item: NamedItem): string {
  return `${item.namespace}\u0000${item.name}`;
}

function hashed(name: string, key: string, length: number): string {
  const digest = bytesToHex(sha256(utf8ToBytes(key))).slice(0, length);
  const prefix = name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, MAX_LENGTH - length - 1);
  return `${prefix}_${digest}`;
}
