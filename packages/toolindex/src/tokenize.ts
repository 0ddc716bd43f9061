import { stemmer } from 'stemmer';
import {
  createWordTable,
  finishHash,
  foldChar,
  HASH_SEED,
  MISSING,
  NOT_ASCII,
} from './word-table.js';
/**
 * Words too common in tool descriptions and questions to tell tools apart. Dropping them keeps
 * posting lists short (faster queries, less memory) and stops "how do I" from scoring.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can could do does e.g eg etc for from how i if in into is it its me ' +
    'my of on or our should so than that the their them then there these this those to use used ' +
    'using via was we what when where which who will with would you your'
  ).split(' '),
);

/**
 * Words that carry no meaning in a request but do occur in tool text (`show all branches`,
 * `please list any open issues`, `I want to…`), as stems. Dropped from queries only: a tool's
 * text is indexed as before, so this costs nothing at registration and `all`/`any` still
 * describe tools (they just never decide a ranking).
 */
const QUERY_FILLER = new Set(
  'all any some everi pleas want need just someth also realli'.split(' '),
);

/**
 * Whether `term` (as {@link tokenize} returns it) says nothing about what a request wants.
 */
export function isQueryFiller(term: string): boolean {
  return QUERY_FILLER.has(term);
}

const ASCII_WORD = /^[a-z]+$/;

/**
 * Stems an English word with Martin Porter's algorithm (the `stemmer` package), so that
 * `files`/`file`, `listing`/`listed`/`list`, `creates`/`created`/`create` and
 * `configure`/`configuration` meet. Words of three letters or fewer, and words with anything
 * but the letters a–z, are returned as they are.
 */
export function stem(word: string): string {
  return word.length <= 3 || !ASCII_WORD.test(word) ? word : stemmer(word);
}

// Character classes, as small integers so the ASCII table below is a flat byte array.
const SEPARATOR = 0;
const LOWER = 1;
const UPPER_CASE = 2;
const DIGIT = 3;
const OTHER = 4;

const ASCII_KIND = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  ASCII_KIND[code] =
    code >= 97 && code <= 122
      ? LOWER
      : code >= 65 && code <= 90
        ? UPPER_CASE
        : code >= 48 && code <= 57
          ? DIGIT
          : SEPARATOR;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const UPPER = /\p{Lu}/u;

function kindOf(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 128) return ASCII_KIND[code] ?? SEPARATOR;
  const ch = text[i] ?? '';
  if (!LETTER_OR_DIGIT.test(ch)) return SEPARATOR;
  return UPPER.test(ch) ? UPPER_CASE : OTHER;
}

// Tool text repeats a small vocabulary, so stemming each distinct word once pays for itself.
const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string | null>();

/**
 * The search term of one lower-cased word as {@link tokenize} makes it: its stem, or `null` for
 * a stop word.
 */
export function termOf(word: string): string | null {
  let cached = stemCache.get(word);
  if (cached === undefined) {
    cached = STOP_WORDS.has(word) ? null : stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, cached);
  }
  return cached;
}

/**
 * Told of each word {@link scanWords} finds: `text.slice(start, end)`, which holds a capital or
 * a non-ASCII letter when `hasUpper` is true (so it must be lower-cased before {@link termOf}),
 * and the word's `hashSpan` (see word-table.ts), worked out as the characters were read.
 */
export type WordVisitor = (
  text: string,
  start: number,
  end: number,
  hasUpper: boolean,
  hash: number,
) => void;

/**
 * Finds the words of `text` the way {@link tokenize} splits them, without slicing them out:
 * indexing looks each span up in a table of words it has seen, so a word met before costs no
 * string and no garbage.
 */
export function scanWords(text: string, visit: WordVisitor): void {
  const n = text.length;
  let start = -1;
  let hasUpper = false;
  let hash = HASH_SEED;
  let ascii = true;
  let prev = SEPARATOR;
  for (let i = 0; i <= n; i++) {
    // Inside a word, a run of lower-case letters needs none of the checks below: most
    // characters of tool text are read by this loop alone.
    if (start >= 0 && prev === LOWER) {
      while (i < n) {
        const lower = text.charCodeAt(i);
        if (lower < 97 || lower > 122) break;
        hash = foldChar(hash, lower);
        i++;
      }
    }
    const code = i < n ? text.charCodeAt(i) : 32;
    const kind = code < 128 ? (ASCII_KIND[code] as number) : kindOf(text, i);
    let boundary = kind === SEPARATOR;
    if (kind === UPPER_CASE && start >= 0) {
      // `fooBar` and `v2Api` break before the capital; `HTTPServer` breaks before the `S`.
      const next = i + 1 < n ? kindOf(text, i + 1) : SEPARATOR;
      boundary = prev === LOWER || prev === DIGIT || (prev === UPPER_CASE && next === LOWER);
    }
    if (boundary && start >= 0) {
      visit(text, start, i, hasUpper, ascii ? finishHash(hash) : NOT_ASCII);
      start = -1;
    }
    if (kind !== SEPARATOR) {
      if (start < 0) {
        start = i;
        hasUpper = false;
        hash = HASH_SEED;
        ascii = true;
      }
      if (code < 128) hash = foldChar(hash, code);
      else ascii = false;
    }
    if (kind === UPPER_CASE || kind === OTHER) hasUpper = true;
    prev = kind;
  }
}

/**
 * Splits text into search terms: words are separated at anything that is not a letter or digit
 * (so snake_case, kebab-case and dotted names split) and at camelCase boundaries (`HTTPServer` →
 * `http`, `server`), lower-cased, stop words dropped and stemmed with {@link stem}.
 *
 * The same function tokenises tools and queries, so both sides always agree.
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  scanWords(text, (source, start, end, hasUpper, hash) => {
    let found = knownTerms.findHashed(hash, source, start, end);
    if (found === MISSING) {
      const word = source.slice(start, end);
      const lower = hasUpper ? word.toLowerCase() : word;
      found = termOf(lower);
      if (knownTerms.size >= STEM_CACHE_LIMIT) knownTerms.clear();
      knownTerms.add(lower, found);
    }
    if (found !== null) terms.push(found);
  });
  return terms;
}

/**
 * The terms of words {@link tokenize} has met, found by the span's hash: a query word (or a
 * word of a tool's text that intent matching reads) costs no sliced string and no `Map` lookup.
 */
const knownTerms = createWordTable<string | null>();
