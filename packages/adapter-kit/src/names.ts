import type { ToolEntry } from '@toolplane/toolindex';
import { NameTable, type NamingOptions } from '@toolplane/toolmodel';
import { listAll, type ToolFilter, type ToolSource } from './source.js';

/** One tool and the name a framework or provider exposes it by. */
export interface NamedTool {
  readonly name: string;
  readonly entry: ToolEntry;
}

/** Options of {@link nameTools}: which tools, and how they are named. */
export interface NameToolsOptions extends ToolFilter {
  /**
   * How tool names are formed (`namespace__name` by default; a `transparent` namespace's tools,
   * and by default tools without a namespace, by their name alone). Names that are not
   * provider-legal (`^[a-zA-Z0-9_-]{1,64}$`) or that collide are shortened with a stable hash,
   * the same way the gateway does.
   */
  readonly naming?: NamingOptions;
}

/**
 * Every tool of the index that the filter lets through, named with toolmodel's `NameTable`
 * (provider-legal, stable, collision-free), in the table's order. Tools without a namespace go by
 * their bare name unless `naming.transparent` names another namespace.
 */
export function nameTools(index: ToolSource['index'], options: NameToolsOptions = {}): NamedTool[] {
  const table = NameTable.build(
    listAll(index, options).map((entry) => ({
      namespace: entry.tool.namespace ?? '',
      name: entry.tool.name,
      entry,
    })),
    { ...options.naming, transparent: options.naming?.transparent ?? '' },
  );
  return table.entries().map(([name, { entry }]) => ({ name, entry }));
}
