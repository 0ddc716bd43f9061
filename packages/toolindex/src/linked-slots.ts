import type { SlotDirectory } from './postings.js';
import type { SearchDocument } from './searcher.js';
import type { ToolRecord } from './tool-record.js';

/**
 * The slots of the index's own searcher, kept on the index's records (see {@link ToolRecord}'s
 * `slot`), so registering a tool inserts its ID into one map, not two. A record replaced for a
 * backend change takes its predecessor's slot (`makeRecord`); a compaction's moves and removals
 * find the current record by ID.
 */
export function linkedDirectory(records: ReadonlyMap<string, ToolRecord>): SlotDirectory {
  return {
    get(id) {
      const slot = records.get(id)?.slot;
      return slot === undefined || slot < 0 ? undefined : slot;
    },
    add(doc, slot) {
      // The index hands its searcher nothing but its records.
      (doc as SearchDocument & Pick<ToolRecord, 'slot'>).slot = slot;
    },
    move(id, slot) {
      const record = records.get(id);
      if (record !== undefined) record.slot = slot;
    },
    delete(id) {
      const record = records.get(id);
      if (record !== undefined) record.slot = -1;
    },
  };
}
