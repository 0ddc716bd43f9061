/**
 * The fixed rule that splits every request set toolindex owns into tuning and held-out halves:
 * a request is held out when the FNV-1a hash of its normalised text (lower case, single spaces)
 * is odd. It depends on nothing but the text, so a request never changes sides when a set grows
 * or is reordered, and nobody chooses which requests are held out.
 */
export function isHeldOut(text: string): boolean {
  const normalised = text.toLowerCase().replace(/\s+/g, ' ').trim();
  let hash = 0x811c9dc5;
  for (let i = 0; i < normalised.length; i++) {
    hash ^= normalised.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (hash & 1) === 1;
}

/** A set split by {@link isHeldOut}: `tuning` may guide changes, `heldOut` is only ever a rate. */
export interface SplitSet<T> {
  readonly tuning: readonly T[];
  readonly heldOut: readonly T[];
}

/** Splits `cases` (each led by its request text) by {@link isHeldOut}, keeping their order. */
export function splitCases<T extends readonly [string, ...unknown[]]>(
  cases: readonly T[],
): SplitSet<T> {
  const tuning: T[] = [];
  const heldOut: T[] = [];
  for (const item of cases) (isHeldOut(item[0]) ? heldOut : tuning).push(item);
  return { tuning, heldOut };
}
