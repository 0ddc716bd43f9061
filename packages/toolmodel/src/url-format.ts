// The `url` format of @cfworker/json-schema and ajv-formats (the same language, written two
// ways) is one regular expression: `^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:<public IPv4>|
// <label>(?:\.<label>)*\.<tld>)(?::\d{2,5})?(?:\/[^\s]*)?$` with the `iu` flags, where a label is
// `(?:[a-z\u{a1}-\u{ffff}0-9]+-?)*[a-z\u{a1}-\u{ffff}0-9]+` and a tld `[a-z\u{a1}-\u{ffff}]{2,}`.
// On a backtracking engine the label's nested quantifiers take time exponential in a label's
// length, and the user-info part time quadratic in the string's. This scanner answers the same
// in one pass: the host can hold neither `:`, `/` nor `@`, so each `@` that may end the user
// info (none before it is whitespace) fixes where the host starts, and the next `:` or `/`
// where it ends; hosts tried from successive `@`s do not overlap.

// With the original's flags: under `iu`, `ſ` (U+017F) is an `s`.
const SCHEME = /^(?:https?|ftp):\/\//iu;

// The original's address alternative as written: a public IPv4 address (its lookaheads refuse
// 10/8, 127/8, 169.254/16, 192.168/16 and 172.16/12). It has no nested quantifier and runs only
// on a host of at most `'255.255.255.255'.length` characters.
const PUBLIC_IPV4 =
  /^(?!10(?:\.\d{1,3}){3})(?!127(?:\.\d{1,3}){3})(?!169\.254(?:\.\d{1,3}){2})(?!192\.168(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))$/;
const MAX_IPV4_LENGTH = 15;

// JavaScript's `\s`, so that user info and path refuse exactly the whitespace the original does.
const SPACE = /\s/gu;

/**
 * Whether `text` is a `url` in the sense of the `format` both validators assert
 * ({@link createValidator} through `@cfworker/json-schema`, and `@toolplane/validator-ajv`
 * through `ajv-formats`): an `http`, `https` or `ftp` URL whose host is a domain name with a
 * letters-only top-level label, or a public IPv4 address (not 10/8, 127/8, 169.254/16,
 * 192.168/16 or 172.16/12, so `http://localhost` and `http://127.0.0.1` are refused), with
 * optional user info, a port of 2–5 digits and a path without whitespace. It answers as the
 * libraries' regular expression does, in time linear in the length of `text`, where that
 * expression backtracks for seconds on some 40-character strings.
 */
export function isUrlFormat(text: string): boolean {
  const scheme = SCHEME.exec(text);
  if (scheme === null) return false;
  const rest = text.slice(scheme[0].length);
  const { first, last } = spaces(rest);
  let start = 0;
  for (;;) {
    let end = start;
    while (end < rest.length && !isHostEnd(rest.charCodeAt(end))) end++;
    if (rest[end] !== '@' && isHost(rest.slice(start, end)) && isPortAndPath(rest, end, last)) {
      return true;
    }
    // The next `@` that can end the user info (`\S+@`): not the first character, and no
    // whitespace before it.
    const at = rest.indexOf('@', Math.max(end, 1));
    if (at === -1 || at > first) return false;
    start = at + 1;
  }
}

// `:`, `/` and `@`: none can be in a host, each can follow one.
function isHostEnd(code: number): boolean {
  return code === 0x3a || code === 0x2f || code === 0x40;
}

function spaces(text: string): { first: number; last: number } {
  let first = text.length;
  let last = -1;
  SPACE.lastIndex = 0;
  for (let match = SPACE.exec(text); match !== null; match = SPACE.exec(text)) {
    first = Math.min(first, match.index);
    last = match.index;
  }
  return { first, last };
}

function isHost(host: string): boolean {
  return (host.length <= MAX_IPV4_LENGTH && PUBLIC_IPV4.test(host)) || isDomainName(host);
}

// `<label>(?:\.<label>)*\.<tld>`, by code point as the `u` flag reads it: a lone surrogate is a
// character in `\u{a1}-\u{ffff}`, a pair one character above it.
function isDomainName(host: string): boolean {
  let labels = 0;
  let length = 0;
  let lettersOnly = true;
  let hyphen = false;
  for (const char of host) {
    if (char === '.') {
      if (length === 0 || hyphen) return false;
      labels++;
      length = 0;
      lettersOnly = true;
      continue;
    }
    length++;
    if (char === '-') {
      if (length === 1 || hyphen) return false;
      hyphen = true;
      lettersOnly = false;
      continue;
    }
    hyphen = false;
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x30 && code <= 0x39) lettersOnly = false;
    else if (!isLetter(code)) return false;
  }
  // The last label is the top-level one: two letters or more (so it cannot end with a hyphen).
  return labels > 0 && lettersOnly && length >= 2;
}

// `[a-z\u{00a1}-\u{ffff}]` under `iu`: no other code point folds into it.
function isLetter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0xa1 && code <= 0xffff)
  );
}

// `(?::\d{2,5})?(?:\/[^\s]*)?$` from `at`; `lastSpace` is the index of the last whitespace.
function isPortAndPath(text: string, at: number, lastSpace: number): boolean {
  let index = at;
  if (text[index] === ':') {
    let digits = 0;
    while (digits <= 5 && isDigit(text.charCodeAt(index + 1 + digits))) digits++;
    if (digits < 2 || digits > 5) return false;
    index += 1 + digits;
  }
  if (index === text.length) return true;
  return text[index] === '/' && lastSpace < index;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
