import { describe, expect, it } from 'vitest';
import type { Tool, ToolBackend } from '@toolplane/toolmodel';
import { createBm25Searcher } from './bm25-searcher.js';
import type { ToolIndex } from './index-types.js';
import { createIndex } from './tool-index.js';

const mcp = (serverName: string): ToolBackend => ({ kind: 'mcp', mcp: { serverName } });
const local = (name: string): ToolBackend => ({ kind: 'local', local: { name } });

const VERBS = ['create', 'list', 'delete', 'update', 'search', 'merge', 'read', 'send'];
const THINGS = ['issue', 'file', 'message', 'branch', 'invoice', 'event', 'page', 'row'];

function toolAt(i: number, note = ''): Tool {
  const verb = VERBS[i % VERBS.length] as string;
  const thing = THINGS[Math.floor(i / VERBS.length) % THINGS.length] as string;
  return {
    name: `${verb}_${thing}_${i}`,
    namespace: `ns${i % 37}`,
    description: `${verb} a ${thing} in the workspace${note}`,
    inputSchema: { type: 'object' },
  };
}

const QUERIES = ['create an issue', 'read a file', 'send a message again', 'merge the branch'];

async function resultsOf(index: ToolIndex): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    out.push((await index.search(query, { limit: 15 })).results);
    out.push((await index.search(query, { limit: 5, namespace: 'ns3' })).results);
  }
  return out;
}

describe("the index's own searcher, its slots kept on the index's records", () => {
  it('answers as a searcher keeping its own slots, through replacements, removals and compactions', async () => {
    const own = createIndex();
    const given = createIndex({ searcher: createBm25Searcher() });
    const both = [own, given];
    const each = (change: (index: ToolIndex) => void): void => {
      for (const index of both) change(index);
    };
    each((index) => {
      for (let i = 0; i < 3000; i++) index.registerTool(toolAt(i), mcp(`ns${i % 37}`));
    });
    expect(await resultsOf(own)).toEqual(await resultsOf(given));
    // A backend change keeps the definition (and its slot); a new definition moves it.
    each((index) => {
      for (let i = 0; i < 3000; i += 5) index.registerTool(toolAt(i), local(`l${i}`));
      for (let i = 0; i < 3000; i += 7) {
        index.registerTool(toolAt(i, ' again'), mcp(`ns${i % 37}`), { replace: true });
      }
    });
    expect(await resultsOf(own)).toEqual(await resultsOf(given));
    // Enough removals to compact the postings more than once, then some tools back.
    each((index) => {
      for (let i = 0; i < 3000; i++) {
        if (i % 4 !== 0) index.unregisterTool(index.getTool(idAt(i)).id);
      }
      index.removeNamespace('ns5');
      for (let i = 0; i < 3000; i += 4) index.unregisterBackend(idAt(i), local(`l${i}`));
      for (let i = 1; i < 3000; i += 8) index.registerTool(toolAt(i, ' back'), mcp('back'));
    });
    expect(own.size).toBe(given.size);
    expect(await resultsOf(own)).toEqual(await resultsOf(given));
    expect((await own.search('send a message again back', { limit: 3 })).results.length).toBe(3);
  });
});

function idAt(i: number): string {
  const tool = toolAt(i);
  return `${tool.namespace as string}:${tool.name}`;
}
