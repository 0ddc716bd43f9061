import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createValidator } from './validator.js';

// Patterns built from ASCII pieces: literals and escapes, classes, anchors, groups (plain,
// non-capturing, named), alternation and every quantifier, greedy and lazy. No lookaround: what
// RE2 cannot express runs on JavaScript's engine anyway, so only the rewrite is on trial here.
const ATOMS = [
  'a',
  'b',
  'Z',
  '0',
  ' ',
  '-',
  '_',
  '.',
  '\\.',
  '\\*',
  '\\/',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '\\b',
  '\\B',
  '\\t',
  '\\n',
  '\\x41',
  '\\u0062',
  '\\cJ',
  '\\0',
  '[a-c]',
  '[^ab]',
  '[\\d_]',
  '[^\\s]',
  '[\\S]',
  '[\\b]',
  '[.-]',
  '[]',
  '[^]',
  '^',
  '$',
] as const;
const QUANTIFIERS = ['', '', '*', '+', '?', '{2}', '{1,}', '{0,2}', '*?', '+?', '??', '{1,3}?'];

const pattern: fc.Arbitrary<string> = fc
  .letrec<{ expr: string; term: string }>((tie) => ({
    term: fc.oneof(
      // Two levels of groups at most: deeper nests of quantifiers make the reference engine itself
      // backtrack for minutes on some eight-character strings.
      { maxDepth: 2, depthIdentifier: 'group', withCrossShrink: true },
      fc.constantFrom(...ATOMS),
      fc
        .tuple(fc.constantFrom('(', '(?:', '(?<g>'), tie('expr'))
        .map(([open, inner]) => `${open}${inner})`),
    ),
    expr: fc
      .array(
        fc
          .array(
            fc
              .tuple(tie('term'), fc.constantFrom(...QUANTIFIERS))
              // A quantifier after an anchor or a boundary is a syntax error with the `u` flag.
              .map(([term, quantifier]) =>
                ['^', '$', '\\b', '\\B'].includes(term) ? term : term + quantifier,
              ),
            { maxLength: 4 },
          )
          .map((terms) => terms.join('')),
        { minLength: 1, maxLength: 3 },
      )
      .map((branches) => branches.join('|')),
  }))
  .expr.filter((source) => {
    try {
      new RegExp(source, 'u');
      return true;
    } catch {
      return false;
    }
  });

const text = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', 'Z', '0', '9', ' ', '\t', '\n', '\r', '-', '_', '.', '*'),
  maxLength: 8,
});

describe('createValidator patterns', () => {
  it('answers as JavaScript\'s "u" engine on random ASCII patterns and strings', () => {
    const validator = createValidator();
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 4 }), (source, texts) => {
        const native = new RegExp(source, 'u');
        const schema = { type: 'string', pattern: source };
        const keys = { type: 'object', patternProperties: { [source]: false } };
        for (const value of texts) {
          const matches = native.test(value);
          expect(validator.validate(schema, value).valid, `${source} on ${value}`).toBe(matches);
          expect(validator.validate(keys, { [value]: 0 }).valid, `${source} on key ${value}`).toBe(
            !matches,
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
