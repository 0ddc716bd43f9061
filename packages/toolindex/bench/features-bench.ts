/**
 * Query cost of the search features, side by side in one run at 100,000 tools: BM25 with
 * multi-intent search off and on, and wrapped in the learning searcher with evidence recorded.
 * Each query's best of 9 rounds, median over the 229 requests of the query sets, and the p50 of
 * every timing of the 9 rounds; the rounds of the variants are interleaved so machine load hits
 * them alike.
 *
 * Run with `pnpm --filter @toolplane/toolindex bench:features`.
 */
import { performance } from 'node:perf_hooks';
import { createBm25Searcher } from '../src/bm25-searcher.js';
import { createLearningSearcher } from '../src/learning-searcher.js';
import { indexOf } from '../src/testdata/evaluation.js';
import { PARAPHRASE_QUERIES } from '../src/testdata/paraphrases.js';
import { HELD_OUT_QUERIES, RELEASED_QUERIES, TUNING_QUERIES } from '../src/testdata/queries.js';
import { paddedCatalogue } from '../src/testdata/scale-catalogue.js';
import type { ToolIndex } from '../src/index-types.js';

const SIZE = Number(process.env.TOOLS ?? 100_000);
const ROUNDS = 9;
const queries = [...TUNING_QUERIES, ...RELEASED_QUERIES, ...HELD_OUT_QUERIES].map(([q]) => q);
const tools = paddedCatalogue(SIZE);
const learner = createLearningSearcher({ searcher: createBm25Searcher() });
const variants: [string, ToolIndex][] = [
  ['BM25, intents off', indexOf(tools, { searcher: createBm25Searcher({ intents: 0 }) })],
  ['BM25, intents on (default)', indexOf(tools)],
  ['learning + intents, with evidence', indexOf(tools, { searcher: learner })],
];
// Evidence from every paraphrase, as a fleet would gather it.
for (const [query, expected] of PARAPHRASE_QUERIES) learner.record(query, expected);

const best = variants.map(() => queries.map(() => Infinity));
// Every timing too, for each variant's p50 (the figure issue 31's target is set on).
const all = variants.map((): number[] => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [v, [, index]] of variants.entries()) {
    for (const [q, query] of queries.entries()) {
      const start = performance.now();
      await index.search(query, { limit: 5 });
      const took = performance.now() - start;
      (all[v] as number[]).push(took);
      const row = best[v] as number[];
      if (took < (row[q] as number)) row[q] = took;
    }
  }
}
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const base = median(best[0] as number[]);
console.log(
  `search features at ${SIZE} tools — ${new Date().toISOString()}, load ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.table(
  variants.map(([label], v) => ({
    variant: label,
    'median of each query’s best, ms': median(best[v] as number[]).toFixed(4),
    'vs intents off': (median(best[v] as number[]) / base).toFixed(2),
    'p50 of all rounds, ms': median(all[v] as number[]).toFixed(4),
  })),
);
const everything = median(all[2] as number[]);
console.log(
  `${everything <= 0.3 ? 'MET   ' : 'MISSED'} query p50 at ${SIZE} tools ≤ 0.3 ms with every feature on (learning with evidence, intents): ${everything.toFixed(4)} ms`,
);
