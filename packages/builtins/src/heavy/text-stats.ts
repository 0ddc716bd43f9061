import { boundedCache, cached, resolvedLocale } from '../cached.js';

/** The counts `text_stats` answers with. */
export interface TextCounts {
  readonly characters: number;
  readonly bytes: number;
  readonly words: number;
  readonly sentences: number;
  readonly lines: number;
  readonly paragraphs: number;
  readonly readingMinutes: number;
}

// Node 20's Intl.Segmenter takes time that grows faster than the length of what it segments, at
// every granularity (graphemes and words: 80k characters, 16 s; sentences: 200k, 3–5 s; 1M, over
// two minutes), so a text is segmented in slices of about this many code units, each cut where
// the three counts are certain to come out as one pass over the whole would give them: the total
// time is linear in the text's length.
const SLICE = 512;
// How far past SLICE to look for such a place before cutting anyway.
const SLICE_SLACK = 256;
const WORDS_PER_MINUTE = 238;

/**
 * Counts a text's characters (graphemes), UTF-8 bytes, words, sentences, lines and paragraphs
 * with Unicode segmentation for `locale`, in time linear in its length (see {@link slices}).
 *
 * @throws {RangeError} for a malformed locale.
 */
export function countText(text: string, locale: string): TextCounts {
  const resolved = resolvedLocale(locale);
  const graphemes = segmenter(resolved, 'grapheme');
  const wordSegmenter = segmenter(resolved, 'word');
  const sentenceSegmenter = segmenter(resolved, 'sentence');
  let characters = 0;
  let words = 0;
  let sentences = 0;
  for (const { slice, continues } of slices(text)) {
    for (const _ of graphemes.segment(slice)) characters++;
    for (const part of wordSegmenter.segment(slice)) if (part.isWordLike === true) words++;
    let first = true;
    for (const part of sentenceSegmenter.segment(slice)) {
      // The first sentence of a slice cut inside a sentence goes on with the previous slice's
      // last one, which was counted already.
      if (part.segment.trim() !== '' && !(first && continues)) sentences++;
      first = false;
    }
  }
  const lines =
    text === '' ? 0 : text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n').length;
  const paragraphs = text.split(/(?:\r?\n[ \t]*){2,}/).filter((p) => p.trim() !== '').length;
  return {
    characters,
    bytes: Buffer.byteLength(text),
    words,
    sentences,
    lines,
    paragraphs,
    readingMinutes: Math.round((words / WORDS_PER_MINUTE) * 10) / 10,
  };
}

// Keyed by the resolved locale: a few dozen locales in use at once at most.
const segmenters = boundedCache<Intl.Segmenter>(48);

function segmenter(locale: string, granularity: 'grapheme' | 'word' | 'sentence'): Intl.Segmenter {
  return cached(
    segmenters,
    `${locale}|${granularity}`,
    () => new Intl.Segmenter(locale, { granularity }),
  );
}

/** A slice of a text, and whether it starts inside a sentence that began in the slice before. */
interface Slice {
  readonly slice: string;
  readonly continues: boolean;
}

/**
 * `text` in slices of about {@link SLICE} code units. Each is cut just after a line feed (where a
 * grapheme, a word and a sentence always end: rules GB4, WB3a, SB4) or else inside a sentence,
 * between a letter and a space and a letter, digit or space after it (where a grapheme and a word
 * always end, and a sentence never does: no terminator precedes the space). Text with no such
 * place for long (e.g. Chinese without spaces) is cut at a code point boundary, which may split
 * one grapheme cluster or word there, and miscount a sentence ending exactly there.
 */
function* slices(text: string): Generator<Slice> {
  let start = 0;
  let continues = false;
  while (text.length - start > SLICE + SLICE_SLACK) {
    let cut = start + SLICE;
    const limit = cut + SLICE_SLACK;
    let kind = cutKind(text, cut);
    while (cut < limit && kind === undefined) kind = cutKind(text, ++cut);
    if (kind === undefined) cut = codePointBoundary(text, start + SLICE);
    yield { slice: text.slice(start, cut), continues };
    continues = kind !== 'sentence';
    start = cut;
  }
  yield { slice: text.slice(start), continues };
}

const LETTER = /\p{L}/uy;
const BASE_AFTER_SPACE = /[\p{L}\p{N}\s]/uy;

/**
 * What ends at `at`: `sentence` when a sentence (and so a grapheme and a word) certainly does,
 * `word` when a grapheme and a word certainly do but a sentence does not, else nothing certain.
 */
function cutKind(text: string, at: number): 'sentence' | 'word' | undefined {
  const before = text.charCodeAt(at - 1);
  // Line feed: GB4, WB3a and SB4 all break after it (a CR LF pair stays whole).
  if (before === 0x0a) return 'sentence';
  if (before !== 0x20) return undefined;
  // A letter, a space, then a base character: no extending mark or joiner glues the space to what
  // follows, and with no terminator before the space no sentence rule breaks there; a letter
  // (unlike a digit) also ends the look-ahead of rule SB8 within the slice.
  LETTER.lastIndex = at - 2;
  if (!LETTER.test(text)) return undefined;
  BASE_AFTER_SPACE.lastIndex = at;
  return BASE_AFTER_SPACE.test(text) ? 'word' : undefined;
}

function codePointBoundary(text: string, at: number): number {
  const code = text.charCodeAt(at);
  // Never between the halves of a surrogate pair.
  return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}
