// How a call is shown to the person asked to approve it: in full where it fits, never more than
// a bound, and with nothing that could redraw or reorder what they read.

/** The longest argument text an approval shows before it cuts and says how much it left out. */
export const MAX_SHOWN_ARGS = 4000;

// C0 and C1 controls, DEL, line and paragraph separators, zero-width characters, the bidi
// embeddings, overrides and isolates, and the byte-order mark: shown as \uXXXX escapes, so a
// value cannot hide text, fake a new line, or make what a person reads run backwards.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `text` with every control, bidi and invisible character written as a `\uXXXX` escape. */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `text` escaped (see {@link escapeUnsafe}) and cut at `max` characters, with a note of how many
 * were left out; a surrogate pair is never split.
 */
export function boundedText(text: string, max: number): string {
  return cut(escapeUnsafe(text), max);
}

function cut(safe: string, max: number): string {
  if (safe.length <= max) return safe;
  let end = max;
  const last = safe.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${safe.slice(0, end)}… (${safe.length - end} more characters not shown)`;
}

/**
 * Arguments as indented JSON, escaped and bounded (see {@link boundedText}). The only raw line
 * breaks are the indentation's: JSON writes a string's own as `\\n`.
 */
export function showArgs(args: unknown, max = MAX_SHOWN_ARGS): string {
  const json = (JSON.stringify(args, null, 2) as string | undefined) ?? 'null';
  return cut(json.split('\n').map(escapeUnsafe).join('\n'), max);
}
