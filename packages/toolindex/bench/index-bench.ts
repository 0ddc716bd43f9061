/**
 * Registration, getTool, search and heap cost of @toolplane/toolindex at 1k, 10k and 100k
 * synthetic tools. Prints medians of several runs and the ratio of search p50 to the DESIGN.md
 * floor (BM25 over 10,000 descriptions with an inverted index: ~0.06 ms per query).
 *
 * Run: pnpm --filter @toolplane/toolindex bench   (node --expose-gc)
 */
import type { ToolBackend } from '@toolplane/toolmodel';
import { catalogueIndex } from '../src/testdata/catalogue.js';
import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { syntheticCatalogue } from './synthetic.js';

const FLOOR_SEARCH_MS = 0.06;
const TARGET = { searchP50Ms: 0.1, registerUs: 5, heapBytes: 2048 };
const RUNS = 5;
const SIZES = [1_000, 10_000, 100_000];

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (the bench script does)');

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

function settle(): number {
  for (let i = 0; i < 3; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

const backendOf = (namespace: string | undefined): ToolBackend => ({
  kind: 'mcp',
  mcp: { serverName: namespace ?? 'default' },
});

async function measure(size: number) {
  const { tools, queries } = syntheticCatalogue(size);
  const backends = tools.map((tool) => backendOf(tool.namespace));
  const registerUs: number[] = [];
  const buildUs: number[] = [];
  const heapPerTool: number[] = [];
  const getToolNs: number[] = [];
  const p50: number[] = [];
  const p99: number[] = [];
  // Held outside the loop so the optimiser cannot treat the index as dead while we weigh it,
  // and dropped before the next baseline so the previous run is not counted.
  const held: { index?: ToolIndex } = {};
  for (let run = 0; run < RUNS; run++) {
    delete held.index;
    const before = settle();
    const index = createIndex();
    held.index = index;
    const start = performance.now();
    for (let i = 0; i < tools.length; i++) index.registerTool(tools[i]!, backends[i]!);
    registerUs.push(((performance.now() - start) * 1000) / size);
    // The BM25 index is built by the first search after registration (indexing is deferred).
    const buildStart = performance.now();
    await index.search('warm up');
    buildUs.push(((performance.now() - buildStart) * 1000) / size);
    heapPerTool.push((settle() - before) / size);

    const ids = index.listTools({ limit: 100 }).entries.map((entry) => entry.id);
    const lookups = 1_000_000;
    let sink = 0;
    const getStart = performance.now();
    for (let i = 0; i < lookups; i++) sink += index.getTool(ids[i % ids.length]!).backends.length;
    getToolNs.push(((performance.now() - getStart) * 1e6) / lookups);
    if (sink === 0) throw new Error('unreachable');

    for (const query of queries.slice(0, 50)) await index.search(query);
    const times: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (const query of queries) {
        const t0 = performance.now();
        await index.search(query, { limit: 20 });
        times.push(performance.now() - t0);
      }
    }
    times.sort((a, b) => a - b);
    p50.push(quantile(times, 0.5));
    p99.push(quantile(times, 0.99));
  }
  return {
    size,
    registerUs: median(registerUs),
    buildUs: median(buildUs),
    heapBytesPerTool: median(heapPerTool),
    getToolNs: median(getToolNs),
    searchP50Ms: median(p50),
    searchP99Ms: median(p99),
  };
}

console.log(`toolindex bench — medians of ${RUNS} runs, node ${process.version}`);
// Warm the JIT on a mid-sized catalogue so the first size is not charged for compilation.
await measure(5_000);
const rows = [];
for (const size of SIZES) rows.push(await measure(size));
console.table(
  rows.map((r) => ({
    tools: r.size,
    'register µs/tool': r.registerUs.toFixed(2),
    'index build µs/tool': r.buildUs.toFixed(2),
    'heap B/tool': Math.round(r.heapBytesPerTool),
    'getTool ns': r.getToolNs.toFixed(1),
    'search p50 ms': r.searchP50Ms.toFixed(4),
    'search p99 ms': r.searchP99Ms.toFixed(4),
    'p50 / floor': (r.searchP50Ms / FLOOR_SEARCH_MS).toFixed(2),
  })),
);
const at10k = rows.find((r) => r.size === 10_000);
if (at10k !== undefined) {
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  console.log(
    `targets at 10k: search p50 ${at10k.searchP50Ms.toFixed(4)} ms (≤ ${TARGET.searchP50Ms}: ${verdict(at10k.searchP50Ms <= TARGET.searchP50Ms)}), ` +
      `register ${at10k.registerUs.toFixed(2)} µs (≤ ${TARGET.registerUs}: ${verdict(at10k.registerUs <= TARGET.registerUs)}), ` +
      `heap ${Math.round(at10k.heapBytesPerTool)} B (≤ ${TARGET.heapBytes}: ${verdict(at10k.heapBytesPerTool <= TARGET.heapBytes)})`,
  );
}

// Search quality beside the timings: the catalogue of real MCP servers plus synthetic neighbours.
const quality = catalogueIndex();
console.log(
  `quality catalogue: ${quality.size} tools (see src/search-quality.test.ts for top-1/top-5)`,
);
