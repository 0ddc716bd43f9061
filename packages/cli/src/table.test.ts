import { createRequire } from 'node:module';
import type CliTable from 'cli-table3';
import fc from 'fast-check';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { drawTable, oneColumnEach } from './table.js';

// What the CLI drew before its own printer: cli-table3, borderless, two spaces after each cell.
const load = createRequire(import.meta.url);
const Table = load('cli-table3') as typeof CliTable;
// string-width, as cli-table3 itself loads it: the measure the printer must agree with.
const stringWidth = createRequire(load.resolve('cli-table3'))('string-width') as (
  text: string,
) => number;

const NONE = ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left'];
const CHARS = Object.fromEntries(
  [
    ...NONE,
    'bottom-right',
    'left',
    'left-mid',
    'mid',
    'mid-mid',
    'right',
    'right-mid',
    'middle',
  ].map((name) => [name, '']),
);

function reference(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  widths?: readonly number[],
): string {
  const table = new Table({
    head: [...head],
    chars: CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    wordWrap: true,
    ...(widths === undefined ? {} : { colWidths: [...widths] }),
  });
  table.push(...rows.map((row) => [...row]));
  return table.toString();
}

const colors = pc.createColors(true);
const paint = [
  (text: string) => text,
  colors.cyan,
  colors.bold,
  colors.dim,
  colors.red,
  (text: string) => colors.bgBlue(colors.underline(text)),
  (text: string) => `\u001b[31m${text}`,
  (text: string) => `\u001b[1m${text}\u001b[0m`,
];

/** Text from the characters the printer measures itself, and from a few it must leave alone. */
const cellText = fc.string({
  unit: fc.oneof(
    {
      arbitrary: fc.constantFrom('a', 'Z', '0', ' ', '-', ':', '’', '“', '…', 'é', '·', 'ß'),
      weight: 100,
    },
    { arbitrary: fc.constantFrom('世', '😀', '©', '\u0301', '\n', '\t', '\u001b'), weight: 1 },
    {
      arbitrary: fc.integer({ min: 0x20, max: 0x2fff }).map((code) => String.fromCodePoint(code)),
      weight: 1,
    },
  ),
  maxLength: 12,
});

const cell = fc
  .tuple(cellText, fc.integer({ min: 0, max: paint.length - 1 }))
  .map(([text, style]) => (paint[style] ?? String)(text));

describe('drawTable', () => {
  it('draws a table as cli-table3 does', () => {
    const head = [colors.bold('TOOL'), colors.bold('DESCRIPTION')];
    const rows = [
      [colors.cyan('builtin:time_now'), 'The current date and time in a time zone’s own words.'],
      [colors.cyan('everything:echo'), 'Echoes back the input'],
      ['x', ''],
    ];
    expect(drawTable(head, rows)).toBe(reference(head, rows));
  });

  it('draws any table of one-line or odd cells as cli-table3 does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }).chain((columns) =>
          fc.tuple(
            fc.array(cell, { minLength: columns, maxLength: columns }),
            fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), {
              maxLength: 5,
            }),
          ),
        ),
        ([head, rows]) => {
          expect(drawTable(head, rows)).toBe(reference(head, rows));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('wraps to a terminal width as cli-table3 does', () => {
    const head = ['TOOL', 'DESCRIPTION'];
    const rows = [['a:b', 'words that wrap within a narrow column of the terminal']];
    expect(drawTable(head, rows, [5, 20])).toBe(reference(head, rows, [5, 20]));
  });

  it('measures every character it draws itself as string-width does: one column', () => {
    const ranges: [number, number][] = [
      [0x20, 0x7e],
      [0xa0, 0x2ff],
      [0x2010, 0x205e],
    ];
    const drawnHere: string[] = [];
    for (const [from, to] of ranges) {
      for (let code = from; code <= to; code += 1) {
        const char = String.fromCodePoint(code);
        if (oneColumnEach(char)) drawnHere.push(char);
      }
    }
    expect(drawnHere.length).toBeGreaterThan(700);
    for (const char of drawnHere) expect([char, stringWidth(char)]).toEqual([char, 1]);
  });
});
