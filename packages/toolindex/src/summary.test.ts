import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { shortDescription } from './summary.js';

describe('shortDescription', () => {
  it('keeps short text and collapses whitespace', () => {
    expect(shortDescription('  Read a\n file.  ')).toBe('Read a file.');
  });

  it('cuts long text at a word boundary and ends it with an ellipsis', () => {
    const text = `${'word '.repeat(40)}end`;
    const short = shortDescription(text);
    expect(short.length).toBeLessThanOrEqual(120);
    expect(short.endsWith('word…')).toBe(true);
  });

  it('never exceeds 120 characters and is a prefix of the collapsed text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const short = shortDescription(text);
        const line = text.replace(/\s+/g, ' ').trim();
        expect(short.length).toBeLessThanOrEqual(120);
        expect(line.startsWith(short.replace(/…$/, ''))).toBe(true);
      }),
    );
  });

  it('gives what collapsing whitespace gives, for one-line and other text alike', () => {
    const unit = fc.constantFrom(
      'a',
      'b',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      'é',
      '.',
      ',',
      '-',
      '!',
      '\u2028',
      '\ud83d',
    );
    fc.assert(
      fc.property(
        fc.string({ unit, maxLength: 160 }),
        fc.integer({ min: 2, max: 130 }),
        (text, max) => {
          expect(shortDescription(text, max)).toBe(collapsedAndCut(text, max));
        },
      ),
    );
  });
});

/** The collapse-and-cut the fast paths must agree with, written with regular expressions only. */
function collapsedAndCut(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const room = line.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  let cut = space > 0 ? room.slice(0, space) : room;
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.replace(/[\s.,;:!?-]+$/, '')}…`;
}
