import type { ListToolsResult, Tool as McpTool } from '@modelcontextprotocol/server';
import { page, pageStart } from '../call-results.js';
import { rememberJson } from './wire-text.js';

/** A page of `tools/list`, as the handler answers it. */
export type ToolPage = ListToolsResult;

// Each listing's pages, made once while the listing is current (it is replaced on any change).
const pagesOf = new WeakMap<readonly McpTool[], Map<number, ToolPage>>();

/**
 * The page of `listed` (sorted by name) after `cursor`, `size` tools: made once for each page
 * of a listing, its JSON text with it (see `wire-text.ts`), so a catalogue listed again and
 * again is neither sliced nor serialised again. Only pages starting on a multiple of `size`
 * (those a client paging from the start asks for) are kept, so a client naming arbitrary
 * cursors cannot make the gateway keep more than one copy of the listing.
 *
 * @throws {ProtocolError} -32602 for a cursor this server did not issue.
 */
export function toolPage(
  listed: readonly McpTool[],
  cursor: string | undefined,
  size: number,
): ToolPage {
  const start = pageStart('tools/list', listed, (t) => t.name, cursor);
  if (start % size !== 0) return paged(listed, cursor, size);
  let pages = pagesOf.get(listed);
  if (pages === undefined) {
    pages = new Map();
    pagesOf.set(listed, pages);
  }
  let found = pages.get(start);
  if (found === undefined) {
    found = rememberJson(paged(listed, cursor, size));
    pages.set(start, found);
  }
  return found;
}

function paged(listed: readonly McpTool[], cursor: string | undefined, size: number): ToolPage {
  const { items, nextCursor } = page('tools/list', listed, (t) => t.name, cursor, size);
  return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
}
