import { closestMatch } from 'leven';

/**
 * The name among `known` that `name` most likely meant: the same name in another case, or the
 * closest one within a slip of the finger (a third of its length in edits, at least two);
 * `undefined` when none is that close. One rule for every "did you mean" toolplane prints.
 */
export function didYouMean(name: string, known: Iterable<string>): string | undefined {
  const candidates = [...known];
  const lowered = name.toLowerCase();
  const sameCase = candidates.find((candidate) => candidate.toLowerCase() === lowered);
  if (sameCase !== undefined) return sameCase;
  return closestMatch(name, candidates, { maxDistance: Math.max(2, Math.floor(name.length / 3)) });
}
