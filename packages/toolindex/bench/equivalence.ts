/**
 * Checks that a change to registration left every search result as it was: the same ids with
 * the same scores, as another copy of the sources (the code before the change) gives them.
 *
 * Both indexes get the same tools in the same way (one by one, in bulk, and with churn:
 * removals, replacements with new descriptions, backend removals, whole namespaces removed and
 * tools registered again, enough of them at 100k to compact the postings), then answer every
 * request of the tuning, released and held-out query sets twice (limit 20, and limit 5 within
 * one namespace). `getTool` of a sample and the first pages of `listTools` are compared too.
 * Prints the number of differences (0 when nothing moved) and exits non-zero on any.
 *
 * Run from packages/toolindex, with a copy of the other sources (their `src` folder, its
 * imports resolvable from where it sits) named by BASE_SRC:
 *
 *   BASE_SRC=path/to/old/src node --conditions=@toolplane/source --import tsx bench/equivalence.ts
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool, ToolBackend } from '@toolplane/toolmodel';
import * as current from '../src/index.js';
import { HELD_OUT_QUERIES, RELEASED_QUERIES, TUNING_QUERIES } from '../src/testdata/queries.js';
import { paddedCatalogue } from '../src/testdata/scale-catalogue.js';

type Module = typeof current;
type Index = current.ToolIndex;

const baseDir = process.env.BASE_SRC;
if (baseDir === undefined) throw new Error('set BASE_SRC to the other copy of toolindex/src');
const base = (await import(pathToFileURL(resolve(baseDir, 'index.ts')).href)) as Module;

const QUERIES = [...TUNING_QUERIES, ...RELEASED_QUERIES, ...HELD_OUT_QUERIES].map(([q]) => q);
const backendOf = (tool: Tool): ToolBackend => ({
  kind: 'mcp',
  mcp: { serverName: tool.namespace ?? 'default' },
});

/** Builds one index the way `scenario` says, from the same tools each time. */
type Scenario = (mod: Module, tools: readonly Tool[]) => Index;

const oneByOne: Scenario = (mod, tools) => {
  const index = mod.createIndex();
  for (const tool of tools) index.registerTool(tool, backendOf(tool));
  return index;
};

const bulk: Scenario = (mod, tools) => {
  const index = mod.createIndex();
  index.registerTools(tools.map((tool) => ({ tool, backend: backendOf(tool) })));
  return index;
};

const churn: Scenario = (mod, tools) => {
  const index = oneByOne(mod, tools);
  const idOf = (tool: Tool): string =>
    tool.namespace === undefined ? tool.name : `${tool.namespace}:${tool.name}`;
  // Two thirds leave (a compaction at any size past 1,536 tools), every 11th of those left is
  // replaced with a new description, every 13th gains and then loses a second backend.
  for (let i = 0; i < tools.length; i++) {
    if (i % 3 !== 0) index.unregisterTool(idOf(tools[i] as Tool));
  }
  for (let i = 0; i < tools.length; i += 33) {
    const tool = tools[i] as Tool;
    const description = `${tool.description ?? ''} replaced: fetch weather reports`;
    index.registerTool({ ...tool, description }, backendOf(tool), { replace: true });
  }
  for (let i = 0; i < tools.length; i += 39) {
    const tool = index.getTool(idOf(tools[i] as Tool)).tool;
    const extra: ToolBackend = { kind: 'local', local: { name: `extra${i}` } };
    index.registerTool(tool, extra);
    if (i % 2 === 0) index.unregisterBackend(idOf(tool), extra);
  }
  const namespaces = index.listNamespaces({ limit: 100 }).namespaces;
  for (const { namespace } of namespaces.slice(0, 3)) index.removeNamespace(namespace);
  // Some come back, in bulk and one by one.
  const back = tools.filter((_, i) => i % 3 === 1 && i % 5 === 0);
  index.registerTools(
    back.slice(0, back.length >> 1).map((tool) => ({ tool, backend: backendOf(tool) })),
  );
  for (const tool of back.slice(back.length >> 1)) index.registerTool(tool, backendOf(tool));
  return index;
};

/** A page without its cursor: cursors are sealed with a key of each index's own. */
const page = (result: { results: unknown; nextCursor?: string }): string =>
  JSON.stringify({ results: result.results, more: result.nextCursor !== undefined });

async function answers(index: Index): Promise<string[]> {
  const out: string[] = [];
  const namespace = index.listNamespaces({ limit: 1 }).namespaces[0]?.namespace;
  for (const query of QUERIES) {
    out.push(page(await index.search(query, { limit: 20 })));
    if (namespace !== undefined) out.push(page(await index.search(query, { limit: 5, namespace })));
  }
  const ids = index.listTools({ limit: 100 }).entries.map((entry) => entry.id);
  for (const id of ids) out.push(JSON.stringify(index.getTool(id)));
  let listed = index.listTools({ limit: 100 });
  for (let i = 0; i < 3 && listed.nextCursor !== undefined; i++) {
    listed = index.listTools({ limit: 100, cursor: listed.nextCursor });
    out.push(JSON.stringify(listed.entries.map((entry) => entry.id)));
  }
  out.push(`size ${index.size}`);
  return out;
}

let differences = 0;
let compared = 0;
for (const size of [2_000, 100_000]) {
  const tools = paddedCatalogue(size);
  for (const [name, scenario] of [
    ['one by one', oneByOne],
    ['bulk', bulk],
    ['churn', churn],
  ] as const) {
    const mine = await answers(scenario(current, tools));
    const theirs = await answers(scenario(base, tools));
    let here = 0;
    for (let i = 0; i < Math.max(mine.length, theirs.length); i++) {
      if (mine[i] !== theirs[i]) {
        if (here < 3) {
          console.log(`  differs at ${i}:`);
          console.log(`    new ${mine[i]?.slice(0, 300)}\n    old ${theirs[i]?.slice(0, 300)}`);
        }
        here++;
      }
    }
    compared += mine.length;
    differences += here;
    console.log(`${size} tools, ${name}: ${mine.length} answers, ${here} differences`);
  }
}
console.log(`${compared} answers compared, ${differences} differences`);
if (differences > 0) process.exitCode = 1;
