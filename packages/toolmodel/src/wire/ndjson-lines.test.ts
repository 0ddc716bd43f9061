import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NdjsonLineSplitter, type SkippedLine } from './ndjson-lines.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

function splitter(maxLineBytes: number, edgeBytes?: number) {
  const seen: (string | { overflow: true } | SkippedLine)[] = [];
  const split = new NdjsonLineSplitter({
    maxLineBytes,
    ...(edgeBytes === undefined ? {} : { edgeBytes }),
    onLine: (line) => seen.push(line),
    onOverflow: () => seen.push({ overflow: true }),
    onSkipped: (line) => seen.push(line),
  });
  return { split, seen };
}

describe('NdjsonLineSplitter', () => {
  it('delivers each line once its newline comes, however the chunks fall', () => {
    const { split, seen } = splitter(100);
    split.push(bytes('{"a":1}\n{"b"'));
    expect(seen).toEqual(['{"a":1}']);
    split.push(bytes(':2}\n\n  \n{"c":3}\r\n{"d"'));
    expect(seen).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('reads a character split across chunks whole, and text chunks as UTF-8', () => {
    const { split, seen } = splitter(100);
    const euro = bytes('"€"\n');
    split.push(euro.subarray(0, 2));
    split.push(euro.subarray(2));
    split.push('"ü"\n');
    expect(seen).toEqual(['"€"', '"ü"']);
  });

  it('takes a line of exactly the cap and skips one byte more, then reads on', () => {
    const { split, seen } = splitter(4, 2);
    split.push(bytes('abcd\nabcde\nok\n'));
    expect(seen).toEqual([
      'abcd',
      { overflow: true },
      { bytes: 5, head: bytes('ab'), tail: bytes('de') },
      'ok',
    ]);
  });

  it('counts the cap in bytes, not characters', () => {
    const { split, seen } = splitter(5);
    split.push('"€€"\n"€"\n');
    expect(seen[0]).toEqual({ overflow: true });
    expect((seen[1] as SkippedLine).bytes).toBe(8);
    expect(seen[2]).toBe('"€"');
  });

  it('reports an over-long line as soon as it passes the cap, its size and ends when it ends', () => {
    const { split, seen } = splitter(10, 4);
    split.push(bytes('{"id":7,"x":"'));
    expect(seen).toEqual([{ overflow: true }]);
    split.push(bytes('y'.repeat(1000)));
    split.push(bytes('"}'));
    expect(seen).toHaveLength(1);
    split.push(bytes('\n{}\n'));
    const skipped = seen[1] as SkippedLine;
    expect(skipped.bytes).toBe(13 + 1000 + 2);
    expect(text(skipped.head)).toBe('{"id');
    expect(text(skipped.tail)).toBe('yy"}');
    expect(seen[2]).toBe('{}');
  });

  it('gives the lines that splitting the whole text would, for any chunking', () => {
    const line = fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replace(/[\n\r]/g, ''));
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          const whole = bytes(lines.map((l) => `${l}\n`).join(''));
          const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort(
            (a, b) => a - b,
          );
          const { split, seen } = splitter(1_000);
          let from = 0;
          for (const point of [...points, whole.length]) {
            split.push(whole.subarray(from, point));
            from = point;
          }
          expect(seen).toEqual(lines.filter((l) => l.trim() !== ''));
        },
      ),
    );
  });
});
