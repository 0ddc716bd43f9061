import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stem, tokenize } from './tokenize.js';

describe('tokenize', () => {
  it('splits camelCase, snake_case, kebab-case and dotted names', () => {
    expect(tokenize('createIssue list_pull_requests read-text-file fs.readFile')).toEqual([
      'creat',
      'issu',
      'list',
      'pull',
      'request',
      'read',
      'text',
      'file',
      'fs',
      'read',
      'file',
    ]);
  });

  it('splits runs of capitals before a capitalised word', () => {
    expect(tokenize('getHTTPResponse HTMLParser')).toEqual([
      'get',
      'http',
      'respons',
      'html',
      'parser',
    ]);
  });

  it('lower-cases, drops stop words and keeps digits with their letters', () => {
    expect(tokenize('The S3 bucket of the USER, version 42')).toEqual([
      's3',
      'bucket',
      'user',
      'version',
      '42',
    ]);
  });

  it('keeps non-ASCII letters (unstemmed) and treats punctuation as separators', () => {
    expect(tokenize('Café «menü» naïve')).toEqual(['café', 'menü', 'naïve']);
  });

  it('never throws and yields only non-empty lower-case terms', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        for (const term of tokenize(text)) {
          expect(term.length).toBeGreaterThan(0);
          expect(term).toBe(term.toLowerCase());
        }
      }),
    );
  });
});

describe('stem', () => {
  it('folds plurals, -ing, -ed, a final e and derived forms together', () => {
    const groups = [
      ['file', 'files'],
      ['list', 'listing', 'listed', 'lists'],
      ['create', 'creates', 'created', 'creating'],
      ['directory', 'directories'],
      ['branch', 'branches'],
      ['run', 'running'],
      ['copy', 'copied'],
      ['configure', 'configuration', 'configured'],
      ['schedule', 'scheduling', 'scheduled'],
    ];
    for (const group of groups) expect(new Set(group.map(stem)).size).toBe(1);
  });

  it('leaves short words, non-ASCII words and words like string or class alone', () => {
    for (const word of ['sum', 'get', 'string', 'need', 'class', 'naïve', 's3api']) {
      expect(stem(word)).toBe(word);
    }
  });
});

describe('tokenize, words met before', () => {
  it('gives a word the same term whatever its case, each time it is met', () => {
    const text = 'Files FILES files fileS Café CAFÉ café the THE HTTPServer httpserver';
    const first = tokenize(text);
    expect(first).toEqual([
      'file',
      'file',
      'file',
      'file',
      's',
      'café',
      'café',
      'café',
      'http',
      'server',
      'httpserver',
    ]);
    expect(tokenize(text)).toEqual(first);
    expect(tokenize(text.toLowerCase())).toEqual(tokenize(text.toUpperCase().toLowerCase()));
  });
});
