// Tool arguments a model writes as JSON text, read without silently changing them.

// An integer of 15 digits or fewer is always read exactly: only longer runs need a closer look.
const LONG_DIGITS = /\d{16}/;
// JSON text's strings and numbers, in order: a number inside a string is skipped with it.
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const INTEGER = /^-?\d+$/;

/**
 * The first integer written in valid JSON `text` that `JSON.parse` reads as another number (one
 * past 2^53 - 1: `9007199254740993` is read as `9007199254740992`), or `undefined` when every
 * integer is read as written. A tool handed the nearby number would act on another record than
 * the model named.
 */
export function inexactInteger(text: string): string | undefined {
  if (!LONG_DIGITS.test(text)) return undefined;
  for (const [token] of text.matchAll(TOKENS)) {
    if (!INTEGER.test(token)) continue;
    if (BigInt(token) !== BigInt(Number(token))) return token;
  }
  return undefined;
}

/** What the model is told about an integer {@link inexactInteger} found. */
export function inexactIntegerMessage(token: string): string {
  return `the integer ${token} in the arguments cannot be passed on exactly (a JSON number past 2^53 - 1 is read as a nearby one, here ${String(Number(token))}), so the tool was not run; send such a value as a string where the tool takes one`;
}
