import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quoted, shellWord, showControls } from './text.js';

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
