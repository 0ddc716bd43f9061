/** Longest {@link shortDescription}, in characters (UTF-16 code units). */
export const SHORT_DESCRIPTION_LENGTH = 120;

/**
 * A one-line description: whitespace collapsed, and when longer than `max` characters, cut at
 * the last word boundary that fits and ended with `…` (so the result, ellipsis included, never
 * exceeds `max`). A single word longer than the limit is cut inside the word.
 */
export function shortDescription(text: string, max: number = SHORT_DESCRIPTION_LENGTH): string {
  // Most descriptions are one line already: used as they are, with no regular expression run
  // (summaries are built on a search's results, on the first search too).
  const line = isOneLine(text) ? text : text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const room = line.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  let cut = space > 0 ? room.slice(0, space) : room;
  // Never leave half of a surrogate pair at the end.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  let end = cut.length;
  while (end > 0 && TRAILING.test(cut[end - 1] as string)) end--;
  return `${cut.slice(0, end)}…`;
}

/** What a cut description does not end with before its ellipsis. */
const TRAILING = /[\s.,;:!?-]/;

/**
 * Whether `text` is already what collapsing its whitespace would make it: no whitespace but
 * single spaces between other characters. Unsure (a character outside ASCII) counts as no.
 */
function isOneLine(text: string): boolean {
  let previousSpace = true; // no space at the start
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      if (previousSpace) return false;
      previousSpace = true;
    } else if ((code >= 9 && code <= 13) || code >= 128) {
      return false;
    } else {
      previousSpace = false;
    }
  }
  return !previousSpace || text.length === 0;
}
