// JSON text read without silently changing its numbers: tool arguments a model writes, and the
// JSON-RPC messages a client sends a gateway.

// An integer of 15 digits or fewer is always read exactly: only longer ones need a closer look.
// A JSON integer starts the text or follows whitespace, `:`, `,` or `[` (a sign between): so a
// float's long fraction (0.30000000000000004, common in any JSON a program wrote) and a string
// of digits (an ID sent as a string, as it should be) do not send a text down the slow path.
const LONG_INTEGER = /(?:^|[\s:,[])-?\d{16}/;
// JSON text's strings and numbers, in order: a number inside a string is skipped with it.
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const INTEGER = /^-?\d+$/;

/**
 * Every integer written in valid JSON `text` that `JSON.parse` reads as another number (one past
 * 2^53 - 1: `9007199254740993` is read as `9007199254740992`), in order; none when every integer
 * is read as written. A text without an integer of 16 digits or more is answered after one
 * regular-expression test, so a caller can check every text it parses. A float (`1e300`, `0.1`) is never one: it
 * was never exact.
 */
export function inexactIntegers(text: string): string[] {
  if (!LONG_INTEGER.test(text)) return [];
  const found: string[] = [];
  for (const [token] of text.matchAll(TOKENS)) {
    if (!INTEGER.test(token)) continue;
    if (BigInt(token) !== BigInt(Number(token))) found.push(token);
  }
  return found;
}

/**
 * The first of {@link inexactIntegers}, or `undefined`. A tool handed the nearby number would act
 * on another record than the one named.
 */
export function inexactInteger(text: string): string | undefined {
  return inexactIntegers(text)[0];
}

/** Where an integer {@link inexactIntegerMessage} names was written, and what came of it. */
export interface InexactIntegerMessageOptions {
  /** Where the integer was, as the message says it (default `in the arguments`). */
  readonly where?: string;
  /**
   * What was not done, and what to do instead (default `the tool was not run; send such a value
   * as a string where the tool takes one`).
   */
  readonly outcome?: string;
}

/**
 * What a caller is told about an integer {@link inexactInteger} found: the integer as written,
 * the number it would have been read as, and to send it as a string.
 */
export function inexactIntegerMessage(
  token: string,
  options: InexactIntegerMessageOptions = {},
): string {
  const {
    where = 'in the arguments',
    outcome = 'the tool was not run; send such a value as a string where the tool takes one',
  } = options;
  // A hostile integer may be a megabyte of digits: its start names it well enough.
  const shown =
    token.length > 40 ? `${token.slice(0, 40)}… (${String(token.length)} characters)` : token;
  return `the integer ${shown} ${where} cannot be passed on exactly (a JSON number past 2^53 - 1 is read as a nearby one, here ${String(Number(token))}), so ${outcome}`;
}
