import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quoted, shellWord, showControls, shownValue } from './text.js';

describe('showControls', () => {
  it('shows control and reordering characters as escapes, and keeps newlines and tabs', () => {
    expect(showControls('a\u001b[2Jb\u202ec\n\td')).toBe('a\\u{1b}[2Jb\\u{202e}c\n\td');
  });
});

describe('shellWord', () => {
  it('leaves plain words alone and quotes the rest so a shell reads them back as text', () => {
    expect(shellWord('read:tools')).toBe('read:tools');
    const hostile = ["it's", '$(touch x)', '`id`; rm -rf /', 'a b', '', '"$HOME"'];
    const echoed = execFileSync(
      '/bin/sh',
      ['-c', `printf '%s\\n' ${hostile.map(shellWord).join(' ')}`],
      {
        encoding: 'utf8',
      },
    );
    expect(echoed).toBe(`${hostile.join('\n')}\n`);
  });
});

describe('quoted', () => {
  it('quotes as JSON and cuts what is longer than its bound', () => {
    expect(quoted('a "b"')).toBe('"a \\"b\\""');
    expect(quoted('x'.repeat(140))).toBe(`"${'x'.repeat(140)}"`);
    expect(quoted('x'.repeat(141))).toBe(`"${'x'.repeat(140)}…"`);
    expect(quoted('abcdef', 3)).toBe('"abc…"');
  });
});

describe('shownValue', () => {
  it('shows numbers as written, text quoted and cut, and anything else by its kind', () => {
    expect(shownValue(2 ** 31)).toBe('2147483648');
    expect(shownValue(Number.NaN)).toBe('NaN');
    expect(shownValue('soon')).toBe('the string "soon"');
    expect(shownValue('x'.repeat(41))).toBe(`the string "${'x'.repeat(40)}…"`);
    expect([null, undefined, [], {}, true, () => 1, 1n].map(shownValue)).toEqual([
      'null',
      'undefined',
      'an array',
      'an object',
      'a boolean',
      'a function',
      'a bigint',
    ]);
  });
});
