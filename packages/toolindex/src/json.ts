import { ToolError } from '@toolplane/toolmodel';

/** Nesting deeper than this is treated as a cycle or an abuse, not a tool definition. */
const MAX_DEPTH = 64;

/**
 * Frozen nodes kept for sharing between copies: a direct-mapped cache (a node's hash picks its
 * one slot, a newer node takes the slot over), so it never grows past this many nodes however
 * many tools are registered.
 */
const SHARED_SLOTS = 4096;
/** Nodes with more entries than this are never shared: large ones rarely repeat. */
const MAX_SHARED_ENTRIES = 32;

const sharedNodes: (object | undefined)[] = new Array<object | undefined>(SHARED_SLOTS).fill(
  undefined,
);
const sharedHashes = new Int32Array(SHARED_SLOTS);

/**
 * The copied entries of the nodes being copied, as a stack: an object's key and value pairs (an
 * array's values) sit above those of its parent, so a node is compared with a shared one before
 * anything is allocated for it.
 */
const pending: unknown[] = [];
let pendingTop = 0;
/** The hash of the value {@link copy} returned last. */
let lastHash = 0;

/**
 * A deeply frozen copy of a JSON-like value. Properties whose value is `undefined` are left out,
 * as `JSON.stringify` would, so `{ a: undefined }` and `{}` copy to the same thing.
 *
 * Registration copies once and reads hand out the frozen copy: no caller, before or after
 * registering, can change what the index holds, and reads cost nothing. Below the top level, a
 * node equal to one copied recently (same keys in the same order, same values) is that frozen
 * node, not a new one: the tools of a catalogue repeat small schemas (`{ "type": "string" }`,
 * the same `properties` of every tool of a kind), and sharing them spares the memory, the
 * allocation and the garbage collector's copying of one object per repeat. Frozen, so sharing
 * is safe; a shared node may be the one another tool's copy holds.
 *
 * @throws {ToolError} `invalid_tool` for a cycle or nesting deeper than 64 levels.
 */
export function frozenCopy<T>(value: T): T {
  const base = pendingTop;
  try {
    // The top node is never shared: it needs neither the stack nor a hash.
    return (
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? copyTop(value)
        : copy(value, 0)
    ) as T;
  } finally {
    // A throw leaves entries on the stack: drop them (and their references).
    for (let i = base; i < pendingTop; i++) pending[i] = undefined;
    pendingTop = base;
  }
}

/** A cheap hash of a string: its length and three of its characters (collisions only cost a miss). */
function stringHash(text: string): number {
  const length = text.length;
  if (length === 0) return 0x2f1;
  return (
    Math.imul(length, 0x9e3779b1) ^
    Math.imul(text.charCodeAt(0), 0x85ebca6b) ^
    Math.imul(text.charCodeAt(length >>> 1), 0xc2b2ae35) ^
    Math.imul(text.charCodeAt(length - 1), 0x27d4eb2f)
  );
}

function primitiveHash(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringHash(value);
    case 'number':
      return Math.imul(value | 0, 0x9e3779b1) ^ ((value * 65_536) | 0);
    case 'boolean':
      return value ? 0x51 : 0x53;
    default:
      return value === null ? 0x55 : 0x57;
  }
}

function mix(hash: number, part: number): number {
  return Math.imul(hash ^ part, 0x01000193) ^ (hash >>> 15);
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    lastHash = primitiveHash(value);
    return value;
  }
  if (depth > MAX_DEPTH) {
    throw new ToolError(
      'invalid_tool',
      `tool definition is nested deeper than ${MAX_DEPTH} levels (or is cyclic); tools must be plain JSON`,
    );
  }
  return Array.isArray(value) ? copyArray(value, depth) : copyObject(value, depth);
}

function copyArray(value: readonly unknown[], depth: number): unknown {
  const base = pendingTop;
  let hash = 0x3a1;
  for (let i = 0; i < value.length; i++) {
    const item = copy(value[i], depth + 1);
    pending[pendingTop++] = item;
    hash = mix(hash, lastHash);
  }
  const shareable = depth > 0 && value.length <= MAX_SHARED_ENTRIES;
  const slot = hash & (SHARED_SLOTS - 1);
  if (shareable && sharedHashes[slot] === hash) {
    const shared = sharedNodes[slot];
    if (Array.isArray(shared) && sameItems(shared, base)) return done(shared, base, hash);
  }
  const out = new Array<unknown>(value.length);
  for (let i = 0; i < value.length; i++) out[i] = pending[base + i];
  Object.freeze(out);
  if (shareable) remember(out, slot, hash);
  return done(out, base, hash);
}

function copyObject(value: object, depth: number): unknown {
  const base = pendingTop;
  let hash = 0x3b3;
  let shareable = depth > 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    // A `__proto__` key is kept as a key (below), and such a node is never shared.
    if (key === '__proto__') shareable = false;
    const itemCopy = copy(item, depth + 1);
    pending[pendingTop++] = key;
    pending[pendingTop++] = itemCopy;
    hash = mix(mix(hash, stringHash(key)), lastHash);
  }
  if (pendingTop - base > MAX_SHARED_ENTRIES * 2) shareable = false;
  const slot = hash & (SHARED_SLOTS - 1);
  if (shareable && sharedHashes[slot] === hash) {
    const shared = sharedNodes[slot];
    if (shared !== undefined && !Array.isArray(shared) && sameEntries(shared, base)) {
      return done(shared, base, hash);
    }
  }
  const out: Record<string, unknown> = {};
  for (let i = base; i < pendingTop; i += 2) {
    const key = pending[i] as string;
    // Assigning `__proto__` would set the copy's prototype instead of keeping the key.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: pending[i + 1],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = pending[i + 1];
    }
  }
  Object.freeze(out);
  if (shareable) remember(out, slot, hash);
  return done(out, base, hash);
}

/** {@link copyObject} for the top node: its entries go straight into the copy. */
function copyTop(value: object): unknown {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const itemCopy = copy(item, 1);
    // Assigning `__proto__` would set the copy's prototype instead of keeping the key.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: itemCopy,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = itemCopy;
    }
  }
  lastHash = 0;
  return Object.freeze(out);
}

/** Whether a shared array holds exactly the pending values from `base` (the same references). */
function sameItems(shared: readonly unknown[], base: number): boolean {
  if (shared.length !== pendingTop - base) return false;
  for (let i = 0; i < shared.length; i++) if (shared[i] !== pending[base + i]) return false;
  return true;
}

/** Whether a shared object has exactly the pending entries from `base`, in the same order. */
function sameEntries(shared: object, base: number): boolean {
  let at = base;
  for (const key in shared) {
    if (at >= pendingTop || pending[at] !== key) return false;
    if ((shared as Record<string, unknown>)[key] !== pending[at + 1]) return false;
    at += 2;
  }
  return at === pendingTop;
}

function remember(node: object, slot: number, hash: number): void {
  sharedNodes[slot] = node;
  sharedHashes[slot] = hash;
}

/** Pops a node's entries off the stack and returns it, its hash left in {@link lastHash}. */
function done(node: unknown, base: number, hash: number): unknown {
  for (let i = base; i < pendingTop; i++) pending[i] = undefined;
  pendingTop = base;
  lastHash = hash;
  return node;
}

// Lives in toolmodel, the lowest layer, since the gateway compares JSON the same way.
export { jsonEqual } from '@toolplane/toolmodel';
