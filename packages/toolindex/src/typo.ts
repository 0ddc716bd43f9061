/**
 * One-edit typo correction for query terms that no tool contains (`serach` → `search`,
 * `shedule` → `schedule`, `delte` → `delete`), with nothing stored: the term's variants one
 * deletion, transposition, substitution or insertion away are looked up in the index itself, so
 * a query pays only for its unknown words and registration pays nothing.
 *
 * @module
 */

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ASCII_TERM = /^[a-z]+$/;

/**
 * Terms (stems) shorter than this are not corrected: too many short words are one edit from a
 * word of some tool (`give` → `given`, `save` → `same`), which would add noise, not a fix.
 */
export const MIN_TYPO_LENGTH = 6;

/**
 * Terms longer than this are not corrected either: a word's variants cost about 54 lookups a
 * letter, each of a string as long as the word, so a hostile query of one 1,000-letter word
 * would build 54 MB of them. No English stem a tool catalogue uses is this long.
 */
export const MAX_TYPO_LENGTH = 24;

/**
 * The known term one edit away from `term` that the most tools contain, or undefined when there
 * is none (or `term` is shorter than {@link MIN_TYPO_LENGTH}, longer than
 * {@link MAX_TYPO_LENGTH}, or not plain a–z). `df` gives a term's document count, 0 for an
 * unknown term. Works on terms as {@link tokenize} returns them (stems), so a typo mostly lands
 * one edit from the stem of the word meant.
 */
export function correctTypo(term: string, df: (term: string) => number): string | undefined {
  const n = term.length;
  if (n < MIN_TYPO_LENGTH || n > MAX_TYPO_LENGTH || !ASCII_TERM.test(term)) return undefined;
  let best: string | undefined;
  let bestDf = 0;
  const consider = (candidate: string): void => {
    const count = df(candidate);
    if (
      count > bestDf ||
      (count === bestDf && count > 0 && best !== undefined && candidate < best)
    ) {
      best = candidate;
      bestDf = count;
    }
  };
  for (let i = 0; i < n; i++) {
    const head = term.slice(0, i);
    const tail = term.slice(i + 1);
    consider(head + tail);
    if (i + 1 < n)
      consider(head + (term[i + 1] as string) + (term[i] as string) + term.slice(i + 2));
    for (const letter of LETTERS) {
      if (letter !== term[i]) consider(head + letter + tail);
    }
  }
  for (let i = 0; i <= n; i++) {
    const head = term.slice(0, i);
    const tail = term.slice(i);
    for (const letter of LETTERS) consider(head + letter + tail);
  }
  return best;
}
