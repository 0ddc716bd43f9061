/**
 * Text shown to a person, whoever wrote it: what an upstream server sends reaches a terminal or
 * a log as characters, never as the control sequences in it. A module of its own, with no
 * imports, so a command that loads nothing else (the CLI's output) can load it.
 *
 * @module
 */

/**
 * Makes text safe to print on a terminal: control characters (which could move the cursor,
 * clear the screen, retitle the window or hide a line) and the invisible characters that reorder
 * text become visible `\u{…}` escapes; newlines and tabs stay.
 */
export function showControls(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u{${c.codePointAt(0)?.toString(16) ?? ''}}`,
  );
}

/**
 * `text` as one word of a POSIX shell command line shown for a person to paste: as it is when it
 * holds only characters no shell treats specially, else single-quoted, so `$(…)`, backticks,
 * `;` and spaces stay text.
 */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * `text` in double quotes (as JSON writes it) for a message, cut to its first `max` characters
 * and an ellipsis: a name or URI a caller sent quoted in an error must not make the error as long
 * as what it refuses.
 */
export function quoted(text: string, max = 140): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * What a message says a caller gave instead of what was expected: a number as written, text
 * quoted (cut to 40 characters, as {@link quoted} cuts), else its kind (`null`, `undefined`,
 * `an array`, `an object`, `a boolean`, `a function`).
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string ${quoted(value, 40)}`;
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return `${type === 'object' ? 'an' : 'a'} ${type}`;
}
