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
    const unit = fc.constantFrom('a', 'b', ' ', '\t', '\n', '\u00a0', 'é', '.', '\u2028');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 140 }), (text) => {
        const line = text.replace(/\s+/g, ' ').trim();
        const short = shortDescription(text);
        if (line.length <= 120) expect(short).toBe(line);
        else expect(short.endsWith('…')).toBe(true);
      }),
    );
  });
});
