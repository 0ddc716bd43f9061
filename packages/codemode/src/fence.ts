// Models write code in their replies inside Markdown code fences, and often send a program to
// run_code the same way. As JavaScript a fence is a tagged template, which throws
// `TypeError: not a function` on line 1: the model learns nothing from that.

// The opening fence on the first line that has text: three backticks and an info word.
const OPENING = /^(\s*)```[\w.+#-]*[ \t]*(?=\r?\n)/;
// The closing fence on the last line that has text.
const CLOSING = /\n[ \t]*```[ \t\r\n]*$/;

/**
 * `program` with the fence lines blanked when the whole of it sits inside one Markdown code fence
 * (```` ```js ```` … ```` ``` ````), else `program` itself. The lines stay where they were, so
 * that a line an error names is a line of the text the model sent.
 */
export function unfenced(program: string): string {
  const opening = OPENING.exec(program);
  if (opening === null) return program;
  const closing = CLOSING.exec(program);
  if (closing === null || closing.index < opening[0].length) return program;
  const leading = opening[1] as string;
  return `${leading}${program.slice(opening[0].length, closing.index)}\n`;
}
