// The CLI's tables. cli-table3 draws them, but loading it (with @colors/colors and string-width)
// is a measurable share of a one-shot command's start, and most tables need none of what it
// does: when the terminal's width plays no part and every cell is one line of characters that
// are one column wide, the table is cells padded to their column's width. That case is drawn
// here, to the byte as cli-table3 draws it (table.test.ts compares the two); anything else
// (wrapping to a terminal's width, several lines in a cell, wide or zero-width characters, a
// colour left open) still goes to cli-table3, loaded then.
import { createRequire } from 'node:module';
import type CliTable from 'cli-table3';

/** Spaces after each cell, cli-table3's `padding-right`. */
const GAP = 2;

// The SGR sequences cli-table3 measures around (its own pattern).
// eslint-disable-next-line no-control-regex -- ANSI colour sequences are control characters
const SGR = /\u001b\[((?:\d*;){0,5}\d*)m/g;

/**
 * Characters string-width (cli-table3's measure) counts as one column each: printable ASCII,
 * Latin-1 and the Latin, IPA and spacing-modifier blocks after it, and general punctuation
 * (dashes, typographic quotes, bullets, the ellipsis), less the few it takes for emoji
 * (© ® ‼ ⁉). table.test.ts checks every one of them against string-width.
 */
const ONE_COLUMN =
  /^[\x20-\x7e\u00a0-\u00a8\u00aa-\u00ad\u00af-\u02ff\u2010-\u2027\u2030-\u203b\u203d-\u2048\u204a-\u205e]*$/;

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

/**
 * A borderless, left-aligned table: `head` then `rows`, each cell followed by two spaces, as
 * cli-table3 draws it. With `widths` (column widths that fit a terminal), the last column's
 * words wrap within its width.
 */
export function drawTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  widths?: readonly number[],
): string {
  return (widths === undefined ? padded(head, rows) : undefined) ?? cliTable3(head, rows, widths);
}

/** The table drawn here, or undefined when a cell needs cli-table3's measures. */
function padded(head: readonly string[], rows: readonly (readonly string[])[]): string | undefined {
  const all = [head, ...rows];
  const visible: string[][] = [];
  for (const row of all) {
    if (row.length !== head.length) return undefined;
    const cells: string[] = [];
    for (const cell of row) {
      const text = cell.replace(SGR, '');
      if (!oneColumnEach(text) || leftOpen(cell)) return undefined;
      cells.push(text);
    }
    visible.push(cells);
  }
  if (head.length === 0) return undefined;
  const width = head.map((_, i) => Math.max(...visible.map((cells) => cells[i]?.length ?? 0)));
  return all
    .map((row, r) =>
      row
        .map((cell, i) => cell + ' '.repeat((width[i] ?? 0) - (visible[r]?.[i]?.length ?? 0) + GAP))
        .join(''),
    )
    .join('\n');
}

/**
 * Whether every character of `text` (colours removed) is one that string-width, cli-table3's
 * measure, counts as one column, so that the text is as wide as it is long.
 */
export function oneColumnEach(text: string): boolean {
  return ONE_COLUMN.test(text);
}

/** Styles cli-table3 tracks by their exact sequence, and the sequence that ends each. */
const STYLES: Readonly<Record<string, { style: string; on: boolean }>> = {
  '\u001b[1m': { style: 'bold', on: true },
  '\u001b[22m': { style: 'bold', on: false },
  '\u001b[3m': { style: 'italics', on: true },
  '\u001b[23m': { style: 'italics', on: false },
  '\u001b[4m': { style: 'underline', on: true },
  '\u001b[24m': { style: 'underline', on: false },
  '\u001b[7m': { style: 'inverse', on: true },
  '\u001b[27m': { style: 'inverse', on: false },
  '\u001b[9m': { style: 'strikethrough', on: true },
  '\u001b[29m': { style: 'strikethrough', on: false },
};

/**
 * Whether `cell` leaves a colour or a style on at its end, which cli-table3 closes by appending
 * sequences: such a cell is left to it.
 */
function leftOpen(cell: string): boolean {
  if (!cell.includes('\u001b')) return false;
  let foreground: string | undefined;
  let background: string | undefined;
  const styles = new Map<string, boolean>();
  for (const match of cell.matchAll(SGR)) {
    const [sequence, params] = match;
    const code = params === undefined || params === '' ? 0 : parseInt(params.split(';')[0] ?? '');
    if ((code >= 30 && code <= 39) || (code >= 90 && code <= 97)) foreground = sequence;
    else if ((code >= 40 && code <= 49) || (code >= 100 && code <= 107)) background = sequence;
    else if (code === 0) {
      foreground = undefined;
      background = undefined;
      styles.clear();
    } else {
      const known = STYLES[sequence];
      if (known !== undefined) styles.set(known.style, known.on);
    }
  }
  return (
    [...styles.values()].some(Boolean) ||
    (foreground !== undefined && foreground !== '\u001b[39m') ||
    (background !== undefined && background !== '\u001b[49m')
  );
}

/** cli-table3, loaded on first use: only tables drawn to a terminal's width, or unusual cells, need it. */
function cliTable3(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  widths: readonly number[] | undefined,
): string {
  // A CommonJS package, required where it is needed; the bundle (scripts/bundle-bin.js) leaves it
  // to Node, which finds it among this package's dependencies.
  const load = createRequire(import.meta.url);
  const Table = load('cli-table3') as typeof CliTable;
  const table = new Table({
    head: [...head],
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': GAP },
    wordWrap: true,
    ...(widths === undefined ? {} : { colWidths: [...widths] }),
  });
  table.push(...rows.map((row) => [...row]));
  return table.toString();
}
