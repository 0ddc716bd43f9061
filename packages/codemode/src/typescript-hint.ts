// What TypeScript-only syntax looks like on one line: a model that read the API as TypeScript
// declarations often writes TypeScript back, and QuickJS, which runs JavaScript, says only
// `SyntaxError: expecting ';'`. Each pattern is syntax no JavaScript line has; a line is only
// looked at once QuickJS refused to parse it, so a rare match elsewhere misleads no one.
const TYPESCRIPT: readonly RegExp[] = [
  // const total: number = 0
  /\b(?:const|let|var)\s+[\w$]+\s*:\s*[\w${[('"]/,
  // (o: Order) =>, function f(a: number, b?: string)
  /[(,]\s*[\w$]+\??\s*:\s*(?:string|number|boolean|any|unknown|object|void|never|[A-Z][\w$]*)\b[^,)]*[,)]/,
  // function f(a): number {, (x): number =>
  /\)\s*:\s*[\w${[('"][^=;]*?(?:=>|\{)/,
  // await f() as { sum: number }, x as const
  /[\w$)\]]\s+as\s+(?:const\b|[A-Z{[]|(?:string|number|boolean|any|unknown)\b)/,
  // interface Order {, type Order = {
  /^\s*(?:export\s+)?(?:interface\s+[\w$]+|type\s+[\w$]+\s*(?:<[^>]*>)?\s*=)/,
  // new Map<string, number>(), f<T>(x)
  /[\w$]<(?:[\w$[\]{}|, ]+)>\s*\(/,
  // globalThis!.x
  /[\w$)\]]!\./,
];

// How much of a long line (a minified one, say) around the error is looked at: the patterns
// stay linear in what they read.
const AROUND = 500;

/**
 * A note for a program QuickJS could not parse at `line` (its text; `column` 1-based, where the
 * error is) when the line holds syntax only TypeScript has near there, else `undefined`.
 */
export function typeScriptHint(line: string, column = 1): string | undefined {
  const near =
    line.length <= 2 * AROUND
      ? line
      : line.slice(Math.max(0, column - 1 - AROUND), Math.max(0, column - 1) + AROUND);
  if (!TYPESCRIPT.some((pattern) => pattern.test(near))) return undefined;
  return 'the program is JavaScript, not TypeScript: leave out type annotations, `as` casts, non-null `!`, type arguments, interfaces and type declarations';
}
