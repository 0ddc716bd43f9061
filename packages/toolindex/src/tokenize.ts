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

const VOWEL = /[aeiouy]/;

function hasVowel(text: string): boolean {
  return VOWEL.test(text);
}

/**
 * A light English stemmer: folds plurals, `-ing`, `-ed` and a trailing `e` so that `files`,
 * `file`, `listing`, `listed` and `creates`/`created`/`create` meet. It is deliberately small:
 * tool text is short, and over-stemming merges names that users tell apart.
 */
export function stem(word: string): string {
  let w = word;
  const n = w.length;
  if (n <= 3 || !/^[a-z]+$/.test(w)) return w;
  if (w.endsWith('ies') && n > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses') || /(?:x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/[sui]s$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ing') && w.length > 5 && hasVowel(w.slice(0, -3)))
    w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length > 4 && hasVowel(w.slice(0, -2))) {
    w = undouble(w.slice(0, -2));
  }
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const last = w.charCodeAt(w.length - 1);
  return w.length > 3 && last === w.charCodeAt(w.length - 2) && !/[lsz]$/.test(w)
    ? w.slice(0, -1)
    : w;
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

function term(word: string): string | null {
  let cached = stemCache.get(word);
  if (cached === undefined) {
    cached = STOP_WORDS.has(word) ? null : stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(word, cached);
  }
  return cached;
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
  const n = text.length;
  let start = -1;
  let hasUpper = false;
  let prev = SEPARATOR;
  for (let i = 0; i <= n; i++) {
    const kind = i < n ? kindOf(text, i) : SEPARATOR;
    let boundary = kind === SEPARATOR;
    if (kind === UPPER_CASE && start >= 0) {
      // `fooBar` and `v2Api` break before the capital; `HTTPServer` breaks before the `S`.
      const next = i + 1 < n ? kindOf(text, i + 1) : SEPARATOR;
      boundary = prev === LOWER || prev === DIGIT || (prev === UPPER_CASE && next === LOWER);
    }
    if (boundary && start >= 0) {
      const word = text.slice(start, i);
      const found = term(hasUpper ? word.toLowerCase() : word);
      if (found !== null) terms.push(found);
      start = -1;
    }
    if (kind !== SEPARATOR && start < 0) {
      start = i;
      hasUpper = false;
    }
    if (kind === UPPER_CASE || kind === OTHER) hasUpper = true;
    prev = kind;
  }
  return terms;
}
