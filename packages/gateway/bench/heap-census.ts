import { readFile } from 'node:fs/promises';

/** Objects of one kind in a heap snapshot: how many, and their own size in bytes. */
export interface Census {
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Kinds whose names are values (a string's text, a number), counted under one label each. */
const ANONYMOUS = new Set(['string', 'concatenated string', 'sliced string', 'number', 'code']);

/**
 * The objects of a V8 heap snapshot file counted by kind: `<type>:<constructor or function name>`
 * (strings, numbers and code under their type alone), each with its count and self size.
 */
export async function censusOf(file: string): Promise<Map<string, Census>> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
  const fields = parsed.snapshot.meta.node_fields;
  const types = parsed.snapshot.meta.node_types[0];
  const width = fields.length;
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const census = new Map<string, Census>();
  const { nodes, strings } = parsed;
  for (let at = 0; at < nodes.length; at += width) {
    const kind = types[nodes[at + (type ?? 0)] ?? 0] ?? '?';
    const label = ANONYMOUS.has(kind)
      ? kind
      : `${kind}:${strings[nodes[at + (name ?? 0)] ?? 0] ?? ''}`.slice(0, 80);
    const entry = census.get(label) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += nodes[at + (size ?? 0)] ?? 0;
    census.set(label, entry);
  }
  return census;
}

/** Per-unit growth from `before` to `after` (divided by `units`), largest first. */
export function growth(
  before: ReadonlyMap<string, Census>,
  after: ReadonlyMap<string, Census>,
  units: number,
): { label: string; count: number; bytes: number }[] {
  return [...after]
    .map(([label, now]) => {
      const was = before.get(label) ?? { count: 0, bytes: 0 };
      return {
        label,
        count: (now.count - was.count) / units,
        bytes: (now.bytes - was.bytes) / units,
      };
    })
    .filter((row) => row.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}
