import { didYouMean } from '@toolplane/toolmodel';
import type { GatewayToolFilter } from './options.js';

/**
 * Which list of a {@link GatewayToolFilter} an entry is in. The tag lists are not checked: a tag
 * no tool has today may be one a server adds later, and servers rarely say their tags.
 */
export type FilterList = 'allow' | 'deny';

/** A filter entry that matches nothing its server offers; see {@link unmatchedFilterEntries}. */
export interface UnmatchedFilterEntry {
  readonly list: FilterList;
  readonly entry: string;
  /** The tool name (or tag) the entry most likely meant. */
  readonly suggestion?: string;
}

/**
 * The `allow` and `deny` entries of `filter` that match no tool among `tools`, the
 * tools of its server once connected. Such an entry does nothing: a misspelt `deny` entry leaves
 * the tool it meant exposed, a misspelt `allow` entry hides the one it meant, so callers report
 * them, each with the name it most likely meant.
 */
export function unmatchedFilterEntries(
  filter: GatewayToolFilter | undefined,
  tools: readonly { readonly name: string }[],
): UnmatchedFilterEntry[] {
  if (filter === undefined) return [];
  const names = new Set(tools.map((tool) => tool.name));
  const unmatched: UnmatchedFilterEntry[] = [];
  const check = (list: FilterList, entries: readonly string[] | undefined, known: Set<string>) => {
    for (const entry of entries ?? []) {
      if (known.has(entry)) continue;
      const suggestion = didYouMean(entry, known);
      unmatched.push({ list, entry, ...(suggestion === undefined ? {} : { suggestion }) });
    }
  };
  check('allow', filter.allow, names);
  check('deny', filter.deny, names);
  return unmatched;
}

/**
 * One line for an {@link UnmatchedFilterEntry} of `namespace`'s `tools` filter, saying what it
 * means and what to do, e.g. `tools.deny of memory: "delete_entitys" matches no tool of memory,
 * so it denies nothing; did you mean "delete_entities"?`.
 */
export function describeUnmatchedEntry(namespace: string, unmatched: UnmatchedFilterEntry): string {
  const { list, entry, suggestion } = unmatched;
  const effect = list === 'deny' ? 'denies nothing' : 'allows nothing';
  // Entries are exact names: a pattern is a frequent slip worth naming.
  const hint = /[*?[]/.test(entry)
    ? 'entries are exact names, not patterns: list each one'
    : suggestion !== undefined
      ? `did you mean "${suggestion}"?`
      : `check it against the tools ${namespace} offers`;
  return `tools.${list} of ${namespace}: "${entry}" matches no tool of ${namespace}, so it ${effect}; ${hint}`;
}
