import { readFileSync } from 'node:fs';
import { fromMcpJson, type Tool } from '@toolplane/toolmodel';
import MiniSearch from 'minisearch';
import type { IndexOptions, ToolIndex } from '../index-types.js';
import { createIndex } from '../tool-index.js';
import { capturedServers } from './catalogue.js';
import type { QueryCase } from './queries.js';
import type { TwoToolCase } from './real-world-requests.js';
import { baseTools, paddedCatalogue } from './scale-catalogue.js';

/** Anything that ranks tool IDs for a request: toolindex or a baseline. */
export type RankTools = (query: string, limit: number) => Promise<readonly string[]>;

interface PublicServer {
  readonly namespace: string;
  readonly tools: readonly { readonly name: string; readonly description: string }[];
}

/**
 * The real tools of the held-out evaluation: the MCP reference servers of public-catalogue.json
 * and the three servers captured in catalogue.json. None of the hand-written tools.
 */
export function realTools(): Tool[] {
  const text = readFileSync(new URL('public-catalogue.json', import.meta.url), 'utf8');
  const servers = (JSON.parse(text) as { servers: PublicServer[] }).servers;
  const tools: Tool[] = [];
  for (const server of servers) {
    for (const { name, description } of server.tools) {
      tools.push({
        namespace: server.namespace,
        name,
        description,
        inputSchema: { type: 'object' },
      });
    }
  }
  for (const server of capturedServers()) {
    for (const json of server.tools) tools.push(fromMcpJson(json, { namespace: server.namespace }));
  }
  return tools;
}

/**
 * `tools` padded to `size` with the distractors of scale-catalogue.ts (re-branded copies of real
 * tool lists and synthetic near-duplicates), leaving out the hand-written tools so no distractor
 * shares a namespace with a real server.
 */
export function withDistractors(tools: readonly Tool[], size: number): Tool[] {
  const base = new Set(baseTools().map((tool) => `${tool.namespace ?? ''}:${tool.name}`));
  const out = [...tools];
  for (const tool of paddedCatalogue(size + base.size)) {
    if (out.length >= size) break;
    if (!base.has(`${tool.namespace ?? ''}:${tool.name}`)) out.push(tool);
  }
  return out;
}

/** A toolindex holding `tools`, each bound to an MCP server of its namespace. */
export function indexOf(tools: readonly Tool[], options?: IndexOptions): ToolIndex {
  const index = createIndex(options);
  index.registerTools(
    tools.map((tool) => ({
      tool,
      backend: { kind: 'mcp', mcp: { serverName: tool.namespace ?? 'default' } } as const,
    })),
  );
  return index;
}

/** `index`'s search as a ranking function. */
export function rankWith(index: ToolIndex): RankTools {
  return async (query, limit) => (await index.search(query, { limit })).results.map((r) => r.id);
}

// camelCase and snake/kebab/dot boundaries, as toolindex splits them.
const SPLIT = /[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

const STOP_WORDS = new Set(
  'a an and are as at be by for from how i in is it me my of on or our the this that to what with'.split(
    ' ',
  ),
);

function foldPlural(term: string): string {
  if (term.length > 4 && term.endsWith('ies')) return `${term.slice(0, -3)}y`;
  if (term.length > 4 && /(?:s|x|z|ch|sh)es$/.test(term)) return term.slice(0, -2);
  if (term.length > 3 && term.endsWith('s') && !term.endsWith('ss')) return term.slice(0, -1);
  return term;
}

/**
 * The baseline: minisearch 7 tuned the way a careful user would: camelCase and separator
 * splitting, lower case, plural folding, field boosts (name and namespace 3, tags and title 2,
 * description 1), common English words dropped, OR of the query words, no prefix or fuzzy matching (both lost top-5 when tried).
 */
export function minisearchRanker(tools: readonly Tool[]): RankTools {
  const search = new MiniSearch<{
    id: string;
    name: string;
    namespace: string;
    title: string;
    tags: string;
    description: string;
  }>({
    fields: ['name', 'namespace', 'title', 'tags', 'description'],
    tokenize: (text) => text.split(SPLIT).filter((word) => word.length > 0),
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return STOP_WORDS.has(lower) ? null : foldPlural(lower);
    },
    searchOptions: { boost: { name: 3, namespace: 3, tags: 2, title: 2 } },
  });
  search.addAll(
    tools.map((tool) => ({
      id: tool.namespace === undefined ? tool.name : `${tool.namespace}:${tool.name}`,
      name: tool.name,
      namespace: tool.namespace ?? '',
      title: tool.title ?? '',
      tags: (tool.tags ?? []).join(' '),
      description: tool.description ?? '',
    })),
  );
  return (query, limit) =>
    Promise.resolve(
      search
        .search(query)
        .slice(0, limit)
        .map((hit) => String(hit.id)),
    );
}

/** Share of `cases` whose intended tool is among the first `k` of `rank`. */
export async function rateOf(
  rank: RankTools,
  cases: readonly QueryCase[],
  k: number,
): Promise<number> {
  let hits = 0;
  for (const [query, expected] of cases) if ((await rank(query, k)).includes(expected)) hits++;
  return hits / cases.length;
}

/** Share of two-tool `cases` with both tools among the first `k` of `rank`. */
export async function bothRateOf(
  rank: RankTools,
  cases: readonly TwoToolCase[],
  k: number,
): Promise<number> {
  let hits = 0;
  for (const [query, first, second] of cases) {
    const ids = await rank(query, k);
    if (ids.includes(first) && ids.includes(second)) hits++;
  }
  return hits / cases.length;
}

/** Share of `cases` with every one of their tools among the first `k` of `rank`. */
export async function allRateOf(
  rank: RankTools,
  cases: readonly (readonly [string, ...string[]])[],
  k: number,
): Promise<number> {
  let hits = 0;
  for (const [query, ...tools] of cases) {
    const ids = await rank(query, k);
    if (tools.every((tool) => ids.includes(tool))) hits++;
  }
  return hits / cases.length;
}
