/** Longest {@link shortDescription}, in characters (UTF-16 code units). */
export const SHORT_DESCRIPTION_LENGTH = 120;

/**
 * A one-line description: whitespace collapsed, and when longer than `max` characters, cut at
 * the last word boundary that fits and ended with `…` (so the result, ellipsis included, never
 * exceeds `max`). A single word longer than the limit is cut inside the word.
 */
export function shortDescription(text: string, max: number = SHORT_DESCRIPTION_LENGTH): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const room = line.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  let cut = space > 0 ? room.slice(0, space) : room;
  // Never leave half of a surrogate pair at the end.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.replace(/[\s.,;:!?-]+$/, '')}…`;
}
