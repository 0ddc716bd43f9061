import { cached } from '../cached.js';

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

// Node 20's Intl.Segmenter takes time quadratic in the length of what it segments (80k
// characters: 16 s), so graphemes and words are counted over slices this long, cut where a
// boundary is certain; sentences, which it segments in linear time, over the whole text.
const SLICE = 512;
// How far past SLICE to look for a certain boundary before cutting anyway.
const SLICE_SLACK = 128;
const WORDS_PER_MINUTE = 238;

/**
 * Counts a text's characters (graphemes), UTF-8 bytes, words, sentences, lines and paragraphs
 * with Unicode segmentation for `locale`, in time linear in its length.
 *
 * @throws {RangeError} for a malformed locale.
 */
export function countText(text: string, locale: string): TextCounts {
  const graphemes = segmenter(locale, 'grapheme');
  const wordSegmenter = segmenter(locale, 'word');
  let characters = 0;
  let words = 0;
  for (const slice of slices(text)) {
    for (const _ of graphemes.segment(slice)) characters++;
    for (const part of wordSegmenter.segment(slice)) if (part.isWordLike === true) words++;
  }
  let sentences = 0;
  for (const part of segmenter(locale, 'sentence').segment(text)) {
    if (part.segment.trim() !== '') sentences++;
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

const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(locale: string, granularity: 'grapheme' | 'word' | 'sentence'): Intl.Segmenter {
  return cached(
    segmenters,
    `${locale}|${granularity}`,
    () => new Intl.Segmenter(locale, { granularity }),
  );
}

/**
 * `text` in slices of about {@link SLICE} code units, each cut just after a line feed or a space
 * followed by a letter, digit or space: places where a grapheme and a word always end. Text with
 * no such place for long (e.g. Chinese without spaces) is cut at a code point boundary, which may
 * split one grapheme cluster or word there.
 */
function* slices(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > SLICE + SLICE_SLACK) {
    let cut = start + SLICE;
    const limit = cut + SLICE_SLACK;
    while (cut < limit && !isCertainBoundary(text, cut)) cut++;
    if (cut === limit) cut = codePointBoundary(text, start + SLICE);
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

const BASE_AFTER_SPACE = /[\p{L}\p{N}\s]/uy;

function isCertainBoundary(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  // Line feed: grapheme rule GB4 and word rule WB3a break after it (a CR LF pair stays whole).
  if (before === 0x0a) return true;
  if (before !== 0x20) return false;
  // A space, then a base character: no extending mark or joiner glues them together.
  BASE_AFTER_SPACE.lastIndex = at;
  return BASE_AFTER_SPACE.test(text);
}

function codePointBoundary(text: string, at: number): number {
  const code = text.charCodeAt(at);
  // Never between the halves of a surrogate pair.
  return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}
