import type { RE2JS } from 're2js';
import { ToolError } from './errors.js';

/** A compiled schema `pattern`: tests a string in time linear in its length. */
export interface LinearPattern {
  /** The pattern as the schema wrote it (ECMA-262 syntax). */
  readonly source: string;
  /** Whether it runs on the linear-time engine (else on JavaScript's, see {@link linearPattern}). */
  readonly linear: boolean;
  /** Whether the pattern matches anywhere in `text` (unanchored, like `RegExp.prototype.test`). */
  test(text: string): boolean;
}

// ECMA-262 WhiteSpace and LineTerminator: what `\s` means in JavaScript (RE2's `\s` is ASCII).
const SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const hex = (code: number): string => `\\x{${code.toString(16)}}`;
const ranges = (list: readonly (readonly [number, number])[]): string =>
  list.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('');
const SPACE = ranges(SPACE_RANGES);
const NOT_SPACE = ranges(
  SPACE_RANGES.map(([from], index) => [(SPACE_RANGES[index - 1]?.[1] ?? -1) + 1, from - 1] as const)
    .concat([[(SPACE_RANGES.at(-1)?.[1] ?? 0) + 1, 0x10ffff]])
    .filter(([from, to]) => from <= to),
);
// JavaScript's `.` without the `s` flag stops at every line terminator, RE2's only at `\n`.
const DOT = `[^\\n\\r\\x{2028}\\x{2029}]`;
const ANY = `\\x{0}-\\x{10ffff}`;
const PROPERTY_PREFIX = /^(?:General_Category|gc|Script|sc)=/;
// ECMA-262 accepts General_Category values by their long names too; RE2 only by the short ones.
const CATEGORY = new Map(
  Object.entries({
    L: 'Letter Uppercase_Letter:u Lowercase_Letter:l Titlecase_Letter:t Modifier_Letter:m Other_Letter:o',
    M: 'Mark Combining_Mark Nonspacing_Mark:n Spacing_Mark:c Enclosing_Mark:e',
    N: 'Number Decimal_Number:d digit:d Letter_Number:l Other_Number:o',
    P: 'Punctuation punct Connector_Punctuation:c Dash_Punctuation:d Open_Punctuation:s Close_Punctuation:e Initial_Punctuation:i Final_Punctuation:f Other_Punctuation:o',
    S: 'Symbol Math_Symbol:m Currency_Symbol:c Modifier_Symbol:k Other_Symbol:o',
    Z: 'Separator Space_Separator:s Line_Separator:l Paragraph_Separator:p',
    C: 'Other Control:c cntrl:c Format:f Surrogate:s Private_Use:o Unassigned:n',
  }).flatMap(([major, names]) =>
    names.split(' ').map((entry) => {
      const [long = '', minor = ''] = entry.split(':');
      return [long, major + minor] as const;
    }),
  ),
);

class Unsupported extends Error {}

/**
 * Rewrites a pattern that is valid ECMA-262 with the `u` flag into RE2 syntax with the same
 * meaning, or throws {@link Unsupported} for what RE2 cannot express (backreferences,
 * lookaround). Only called on patterns `new RegExp(source, 'u')` accepted, so the syntax is sound.
 */
function toRe2(source: string): string {
  let out = '';
  let inClass = false;
  for (let at = 0; at < source.length; at++) {
    const char = source[at] ?? '';
    if (char === '\\') {
      const next = source[at + 1] ?? '';
      at++;
      if (next === 'u') {
        let code: number;
        if (source[at + 1] === '{') {
          const end = source.indexOf('}', at);
          code = Number.parseInt(source.slice(at + 2, end), 16);
          at = end;
        } else {
          code = Number.parseInt(source.slice(at + 1, at + 5), 16);
          at += 4;
          const low = /^\\u(d[c-f][0-9a-f]{2})/i.exec(source.slice(at + 1));
          if (code >= 0xd800 && code <= 0xdbff && low?.[1] !== undefined) {
            code = 0x10000 + ((code - 0xd800) << 10) + (Number.parseInt(low[1], 16) - 0xdc00);
            at += 6;
          }
        }
        out += hex(code);
      } else if (next === 's') {
        out += inClass ? SPACE : `[${SPACE}]`;
      } else if (next === 'S') {
        out += inClass ? NOT_SPACE : `[^${SPACE}]`;
      } else if (next === 'c') {
        out += hex(source.charCodeAt(at + 1) % 32);
        at++;
      } else if (next === '0') {
        out += hex(0);
      } else if (next === 'b' && inClass) {
        out += hex(8);
      } else if (/[1-9]/.test(next) || next === 'k') {
        throw new Unsupported('backreferences');
      } else if (next === 'p' || next === 'P') {
        const end = source.indexOf('}', at);
        const name = source.slice(at + 2, end).replace(PROPERTY_PREFIX, '');
        out += `\\${next}{${CATEGORY.get(name) ?? name}}`;
        at = end;
      } else {
        out += `\\${next}`;
      }
    } else if (inClass) {
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      if (source.startsWith('[]', at)) {
        out += `[^${ANY}]`;
        at += 1;
      } else if (source.startsWith('[^]', at)) {
        out += `[${ANY}]`;
        at += 2;
      } else {
        inClass = true;
        // A leading `]` is literal in RE2 but closes an empty class in JavaScript; handled above.
        out += char;
        if (source[at + 1] === '^') {
          out += '^';
          at++;
        }
      }
    } else if (char === '.') {
      out += DOT;
    } else if (char === '(' && source[at + 1] === '?') {
      if (source.startsWith('(?:', at)) {
        out += '(?:';
        at += 2;
      } else if (/^\(\?<[^=!]/.test(source.slice(at, at + 4))) {
        out += '(?P<';
        at += 2;
      } else {
        throw new Unsupported('lookahead and lookbehind');
      }
    } else {
      out += char;
    }
  }
  return out;
}

// re2js (about 0.9 MB) is loaded on the first pattern compiled, not when this package is
// imported: every CLI start imports it, and most schemas have no pattern. `require` keeps the
// validators synchronous; it is reached through `process.getBuiltinModule` rather than an import
// of `node:module`, so the package still loads on runtimes without Node's modules, where
// patterns keep running on JavaScript's engine.
let engine: typeof RE2JS | null | undefined;

function re2(): typeof RE2JS | null {
  if (engine === undefined) {
    try {
      const { createRequire } = process.getBuiltinModule('node:module');
      engine = (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
    } catch {
      engine = null;
    }
  }
  return engine;
}

/**
 * A schema's pattern as JavaScript compiles it (ECMA-262, `u` flag).
 *
 * @throws {ToolError} `invalid_schema` naming `where` the pattern is, when it does not compile.
 */
export function schemaRegExp(source: string, where: string): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch (error) {
    throw new ToolError(
      'invalid_schema',
      `${where} ${JSON.stringify(source)} is not a valid regular expression (ECMA-262, "u" flag)`,
      { cause: error },
    );
  }
}

/**
 * Compiles a JSON Schema `pattern` (or `patternProperties` key) for a linear-time engine (RE2,
 * through `re2js`), so that no value a caller sends can make a test backtrack for seconds: a
 * validator shared by many sessions would stall them all. The pattern is read as ECMA-262 with
 * the `u` flag, as JSON Schema requires, and rewritten to keep JavaScript's meaning of `\s`, `.`,
 * `\u` escapes and `\p{…}`. Both toolplane validators compile their patterns here.
 *
 * What RE2 cannot express (backreferences `\1`, `\k<name>`; lookaround `(?=`, `(?!`, `(?<=`,
 * `(?<!`; a repeat count past RE2's 1,000) runs on JavaScript's own engine, as before: such
 * schemas keep working, and only they can still backtrack. So does every pattern on a runtime
 * where `re2js` cannot be loaded synchronously (one without `process.getBuiltinModule`).
 *
 * @throws {ToolError} `invalid_schema` for a pattern that is not a valid ECMA-262 regular
 * expression.
 */
export function linearPattern(source: string, where = 'pattern'): LinearPattern {
  const native = schemaRegExp(source, where);
  const fallback = { source, linear: false, test: (text: string) => native.test(text) };
  const RE2 = re2();
  if (RE2 === null) return fallback;
  let compiled: RE2JS;
  try {
    compiled = RE2.compile(toRe2(source));
  } catch {
    return fallback;
  }
  return { source, linear: true, test: (text) => compiled.test(text) };
}
