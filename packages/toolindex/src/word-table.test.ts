import { describe, expect, it } from 'vitest';
import { scanWords } from './tokenize.js';
import { createWordTable, hashSpan, MISSING, NOT_ASCII } from './word-table.js';

describe('createWordTable', () => {
  it('finds a word by a span of a longer text, capitals folded, without slicing it', () => {
    const table = createWordTable<number>();
    table.add('issue', 1);
    table.add('issues', 2);
    const text = 'createIssue ISSUES issu';
    expect(table.find(text, 6, 11)).toBe(1);
    expect(table.find(text, 12, 18)).toBe(2);
    // A prefix of a known word is another word.
    expect(table.find(text, 19, 23)).toBe(MISSING);
  });

  it('never finds a span holding a character outside ASCII, nor adds such a word', () => {
    const table = createWordTable<string>();
    table.add('café', 'x');
    expect(table.size).toBe(0);
    expect(table.find('café', 0, 4)).toBe(MISSING);
  });

  it('keeps every word through growth, replaces a value, and forgets all on clear', () => {
    const table = createWordTable<number>();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);
    words.forEach((word, i) => {
      table.add(word, i);
    });
    expect(table.size).toBe(words.length);
    const text = words.join(' ');
    let at = 0;
    words.forEach((word, i) => {
      expect(table.find(text, at, at + word.length)).toBe(i);
      at += word.length + 1;
    });
    table.add('w0x', -1);
    expect(table.find('w0x', 0, 3)).toBe(-1);
    expect(table.size).toBe(words.length);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.find('w0x', 0, 3)).toBe(MISSING);
  });

  it('is found by the hash scanWords works out as it reads each word', () => {
    const table = createWordTable<number>();
    const text = 'getHTTPServerURLs v2Api snake_case-kebab ÉCOLE naïve HTTPServer x';
    const spans: [number, number, number][] = [];
    scanWords(text, (_, start, end, __, hash) => {
      spans.push([start, end, hash]);
    });
    expect(spans.length).toBeGreaterThan(8);
    spans.forEach(([start, end, hash], i) => {
      expect(hash).toBe(hashSpan(text, start, end));
      const word = text.slice(start, end).toLowerCase();
      table.add(word, i);
      expect(table.findHashed(hash, text, start, end)).toBe(hash === NOT_ASCII ? MISSING : i);
    });
  });
});
