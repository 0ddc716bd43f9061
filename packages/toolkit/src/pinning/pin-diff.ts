import { createTwoFilesPatch } from 'diff';
import type { PinChange } from './pin-types.js';
import { showControls } from '@toolplane/toolmodel/text';

/** The fields of a definition a pin covers, in the order a diff shows them. */
const FIELDS = ['name', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

function parse(definition: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(definition);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Which covered fields differ between a change's pinned and current definitions. */
export function changedFields(change: Pick<PinChange, 'pinned' | 'current'>): string[] {
  const before = parse(change.pinned.definition);
  const after = parse(change.current.definition);
  return FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

/** Options of {@link describePinChange}. */
export interface DescribePinChangeOptions {
  /** Lines of a long field kept before it is cut with a note; default 400. */
  readonly maxLines?: number;
  /** Characters of one line kept before it is cut; default 400. */
  readonly maxLineChars?: number;
}

/** A definition as lines a person can read: each field pretty-printed, long lines cut. */
function readable(definition: string, maxLines: number, maxLineChars: number): string {
  const value = parse(definition);
  const lines: string[] = [];
  for (const field of FIELDS) {
    const text =
      typeof value[field] === 'string'
        ? value[field]
        : JSON.stringify(value[field] ?? null, null, 2);
    const all = text.split('\n');
    // Cut before diffing: the diff's cost grows with the lines it compares.
    const body = all
      .slice(0, maxLines)
      .map((line) =>
        line.length > maxLineChars
          ? `${line.slice(0, maxLineChars)} … (${String(line.length - maxLineChars)} more characters)`
          : line,
      );
    lines.push(`${field}:`, ...body.map((line) => `  ${line}`));
    if (all.length > maxLines) lines.push(`  … (${String(all.length - maxLines)} more lines)`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A change as a unified diff of the pinned and current definitions, each field shown readably
 * (descriptions as text, schemas as indented JSON), control characters escaped and long lines
 * and diffs cut, so a hostile definition can neither flood nor rewrite a terminal.
 */
export function describePinChange(
  change: PinChange,
  options: DescribePinChangeOptions = {},
): string {
  const maxLines = options.maxLines ?? 400;
  const maxLineChars = options.maxLineChars ?? 400;
  const patch = createTwoFilesPatch(
    `pinned ${change.pinned.fingerprint}`,
    `current ${change.current.fingerprint}`,
    readable(change.pinned.definition, maxLines, maxLineChars),
    readable(change.current.definition, maxLines, maxLineChars),
    undefined,
    undefined,
    { context: 2 },
  );
  const lines = patch.split('\n').filter((line) => !line.startsWith('====='));
  const kept =
    lines.length > maxLines
      ? [...lines.slice(0, maxLines), `… (${String(lines.length - maxLines)} more lines)`]
      : lines;
  return showControls(kept.join('\n').trimEnd());
}
