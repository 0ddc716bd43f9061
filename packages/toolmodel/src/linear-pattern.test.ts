import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearPattern } from './linear-pattern.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

// Imports the package from source in a fresh process and reports, after the import, after a
// schema without a pattern and after one with a pattern, whether re2js has been required.
const LOAD_PROBE = `
import { createRequire } from 'node:module';
const { cache } = createRequire(import.meta.url);
const loaded = () => Object.keys(cache).some((file) => /[\\\\/]re2js[\\\\/]/.test(file));
const { createValidator } = await import('@toolplane/toolmodel');
const seen = [loaded()];
createValidator().validate({ type: 'string', minLength: 1 }, 'x');
seen.push(loaded());
createValidator().validate({ type: 'string', pattern: '^x' }, 'x');
seen.push(loaded());
console.log(JSON.stringify(seen));
`;

describe('linearPattern', () => {
  it('agrees with the JavaScript "u" engine on patterns and strings it generates', () => {
    const atoms = [
      'a',
      'b',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\w',
      '[^a]',
      '\\u00e9',
      '\\p{L}',
      '[\\s\\d]',
    ];
    const pattern = fc
      .array(fc.tuple(fc.constantFrom(...atoms), fc.constantFrom('', '*', '+', '?', '{1,2}')), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.map(([atom, quantifier]) => atom + quantifier).join(''));
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', '1', ' ', '\u00a0', '\n', '\r', '\u2028', 'é', 'Ж', '😀'),
      maxLength: 6,
    });
    fc.assert(
      fc.property(pattern, text, (source, value) => {
        expect(linearPattern(source).test(value)).toBe(new RegExp(source, 'u').test(value));
      }),
    );
  });

  it('runs backreferences and lookaround on the JavaScript engine, as before', () => {
    for (const [source, text, matches] of [
      ['(a)\\1', 'aa', true],
      ['(?<x>a)\\k<x>', 'ab', false],
      ['^(?=.*\\d).+$', 'pass1', true],
      ['(?<!a)b', 'ab', false],
    ] as const) {
      const pattern = linearPattern(source);
      expect(pattern.linear).toBe(false);
      expect(pattern.test(text)).toBe(matches);
    }
  });

  it('refuses a pattern that is not a regular expression with invalid_schema', () => {
    expect(() => linearPattern('(')).toThrow(expect.objectContaining({ code: 'invalid_schema' }));
  });

  it('answers a backtracking pattern at once', () => {
    const pattern = linearPattern('^(a+)+$');
    expect(pattern.linear).toBe(true);
    expect(pattern.test(`${'a'.repeat(40)}b`)).toBe(false);
    expect(pattern.test('aaaa')).toBe(true);
  });

  it('requires re2js on the first schema with a pattern, not when the package is imported', async () => {
    // Every CLI start imports this package; re2js is 0.9 MB of JavaScript most starts never use.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--conditions=@toolplane/source',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        LOAD_PROBE,
      ],
      { cwd: packageDir, encoding: 'utf8' },
    );
    expect(JSON.parse(stdout)).toEqual([false, false, true]);
  });
});
