/**
 * Strings for the `url` format, and the verdict of the regular expression of both
 * `@cfworker/json-schema` and `ajv-formats` on each: the cases every `SchemaValidator`
 * and the linear-time `isUrlFormat` must answer alike.
 */
export const URL_CASES: readonly (readonly [text: string, valid: boolean])[] = [
  ['http://example.com', true],
  ['https://example.com/a/b?c=d#e', true],
  ['ftp://files.example.org', true],
  ['HTTPS://EXAMPLE.COM', true],
  ['httpſ://example.com', true],
  ['mailto:someone@example.com', false],
  ['ws://example.com', false],
  ['http:/example.com', false],
  ['http://', false],
  ['http://localhost', false],
  ['http://localhost:3000', false],
  ['http://a', false],
  ['http://a.b', false],
  ['http://a.bc', true],
  ['http://a.b1', false],
  ['http://a-b.c-d.com', true],
  ['http://a--b.com', false],
  ['http://-a.com', false],
  ['http://a-.com', false],
  ['http://a..com', false],
  ['http://.a.com', false],
  ['http://a.com.', false],
  ['http://1.1.1.1', true],
  ['http://8.8.8.8:53', true],
  ['http://223.255.255.254', true],
  ['http://224.0.0.1', false],
  ['http://1.2.3.0', false],
  ['http://1.2.3.255', false],
  ['http://1.2.3', false],
  ['http://1.2.3.4.5', false],
  ['http://01.2.3.4', false],
  ['http://1.02.3.4', true],
  ['http://1.002.3.4', false],
  ['http://10.0.0.1', false],
  ['http://100.0.0.1', true],
  ['http://127.0.0.1', false],
  ['http://127.0.0.1:8080/x', false],
  ['http://169.254.1.1', false],
  ['http://169.253.1.1', true],
  ['http://192.168.0.1', false],
  ['http://192.169.0.1', true],
  ['http://172.15.0.1', true],
  ['http://172.16.0.1', false],
  ['http://172.31.255.254', false],
  ['http://172.32.0.1', true],
  ['http://10.0.0.1.example.com', true],
  ['http://example.com:80', true],
  ['http://example.com:65535/', true],
  ['http://example.com:99999', true],
  ['http://example.com:123456', false],
  ['http://example.com:8', false],
  ['http://example.com:', false],
  ['http://example.com:80x', false],
  ['http://user:pass@example.com', true],
  ['http://user@10.0.0.1', false],
  ['http://@example.com', false],
  ['http://a b@example.com', false],
  ['http://a@b@example.com', true],
  ['http://a/b@example.com/c@d', true],
  ['http://example.com/a b', false],
  ['http://example.com/a\u00a0b', false],
  ['http://example.com/a\u2028', false],
  ['http://example.com/ünïcödé/😀', true],
  ['http://münchen.de', true],
  ['http://例子.测试', true],
  ['http://пример.рф/путь', true],
  ['http://a.😀😀', false],
  ['http://a\u3000b.com', true],
  ['http://a\ud800.com', true],
  ['http://a.\ud800\udc00x', false],
  ['http://a.x\udc00', true],
  ['http://exam_ple.com', false],
  ['http://example.com?q', false],
  ['http://example.com#x', false],
  [' http://example.com', false],
  ['http://example.com ', false],
  ['http://example.com\n', false],
];

/**
 * Pieces that join into url-like strings, for a differential property test of a `url` check
 * against the libraries' regular expression: schemes, hosts with dots and dashes, IPv4 addresses
 * (private ranges too), ports, user info, paths, letters beyond ASCII and whitespace.
 */
export const URL_PARTS: readonly string[] = [
  'http://',
  'https://',
  'ftp://',
  'HTTP://',
  'httpſ://',
  'ws://',
  'a',
  'Z',
  'ab',
  'com',
  'localhost',
  '0',
  '1',
  '9',
  '-',
  '--',
  '.',
  '_',
  ':',
  '/',
  '@',
  '?',
  '#',
  '%20',
  ':80',
  ':8080',
  ':123456',
  'user:pass@',
  '10.',
  '127.',
  '169.254.',
  '192.168.',
  '172.16.',
  '172.31.',
  '172.32.',
  '1.2.3.4',
  '25',
  '255',
  '256',
  '223.',
  '0.',
  '.1',
  'é',
  'ж',
  '例',
  'ſ',
  '\u212a',
  '😀',
  '\ud800',
  '\udc00',
  ' ',
  '\t',
  '\n',
  '\u00a0',
  '\u3000',
];

const LABELS = ['a', 'b-c', 'xn--d', '-a', 'a-', 'é', 'ex', 'com', 'рф', '😀😀', 'c0', ''];
// The first two octets of an IPv4 address: each private range, its neighbours, the edges.
const PREFIXES =
  '10.0 10.255 11.0 127.1 126.0 169.254 169.253 192.168 192.167 172.15 172.16 172.31 172.32 1.2 223.255 224.0 0.1 01.2 1.02 1.002 1.256 9.99'.split(
    ' ',
  );
const OCTETS = '0 1 01 001 9 10 99 100 127 168 199 200 249 250 254 255 256'.split(' ');
const SCHEMES = ['http://', 'https://', 'ftp://', 'HTTPS://'];
const USERS = ['', '', 'u@', 'user:pass@', 'a b@', '@', 'x@y@'];
const PORTS = ['', '', ':80', ':1', ':65535', ':123456'];
const PATHS = ['', '', '/', '/a b', '/p?q#r', '/@:', '/\u00a0'];

/**
 * Urls in the shapes the libraries' expression expects, as a list of positions each with
 * choices right and wrong: scheme, user info, a host of domain labels or of IPv4 octets (private
 * ranges and each octet's edges included), port and path. A differential property test picks
 * one choice per position (now and then a piece of {@link URL_PARTS} instead) and joins them.
 */
export const URL_SHAPES: readonly (readonly (readonly string[])[])[] = [
  [
    SCHEMES,
    USERS,
    LABELS,
    ['.', '-', ''],
    LABELS,
    ['.', ''],
    LABELS,
    ['.', ''],
    LABELS,
    PORTS,
    PATHS,
  ],
  [SCHEMES, USERS, PREFIXES, ['.'], OCTETS, ['.', '.', ''], OCTETS, PORTS, PATHS],
];

/**
 * A url-like string from a list of picks (e.g. random naturals): the first picks one of
 * {@link URL_SHAPES} or a free string of {@link URL_PARTS}, each further one a choice at its
 * position, now and then a stray piece instead. Joined from pieces, so a property test shrinks
 * towards short strings.
 */
export function urlLikeText(picks: readonly number[]): string {
  const [which = 0, ...rest] = picks;
  const part = (pick: number): string => URL_PARTS[pick % URL_PARTS.length] ?? '';
  const shape = URL_SHAPES[which % (URL_SHAPES.length + 1)];
  if (shape === undefined) return rest.slice(0, 10).map(part).join('');
  return shape
    .map((choices, index) => {
      const pick = rest[index] ?? 0;
      const chosen = Math.floor(pick / 9);
      return pick % 9 === 8 ? part(chosen) : (choices[chosen % choices.length] ?? '');
    })
    .join('');
}

/**
 * Every BMP code unit, and the astral letters of the Deseret block (which have case mappings),
 * in each part of a url: scheme, user info, host label, top-level label, port and path.
 */
export function* urlCharacterCases(): Generator<string> {
  for (let code = 0; code <= 0x104ff; code = code === 0xffff ? 0x10400 : code + 1) {
    const char = String.fromCodePoint(code);
    yield `http${char}://a.com`;
    yield `http://${char}@a.com`;
    yield `http://a${char}b.com`;
    yield `http://ab.c${char}d`;
    yield `http://a.com:8${char}`;
    yield `http://a.com/${char}`;
  }
}
