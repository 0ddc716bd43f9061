/**
 * Held-out evaluation, side by side with minisearch tuned, in one run: toolindex's own held-out
 * requests (split.ts), the real-world requests over real MCP servers' tools, and two-tool
 * requests, each on the tools alone and among 10,000 with distractors. Prints rates only.
 *
 * Run with `pnpm --filter @toolplane/toolindex bench:held-out`.
 */
import type { Tool } from '@toolplane/toolmodel';
import { createBm25Searcher } from '../src/bm25-searcher.js';
import { baseTools, paddedCatalogue } from '../src/testdata/scale-catalogue.js';
import {
  allRateOf,
  bothRateOf,
  indexOf,
  minisearchRanker,
  rankWith,
  rateOf,
  realTools,
  withDistractors,
  type RankTools,
} from '../src/testdata/evaluation.js';
import { HELD_OUT_QUERIES, RELEASED_QUERIES, TUNING_QUERIES } from '../src/testdata/queries.js';
import { REAL_WORLD_QUERIES, TWO_TOOL_REQUESTS } from '../src/testdata/real-world-requests.js';
import {
  publicMultiToolRequests,
  publicMultiTools,
  publicRequests,
  publicTools,
} from '../src/testdata/public-requests.js';
import { splitCases } from '../src/testdata/split.js';
import { ONE_NEED_CLAUSE_REQUESTS } from '../src/testdata/one-need-clause-requests.js';
import { IMPLICIT_TWO_TOOL_REQUESTS } from '../src/testdata/two-tool-implicit-requests.js';
import { FRESH_TWO_TOOL_REQUESTS } from '../src/testdata/two-tool-fresh-requests.js';
import { CATALOGUE_TWO_TOOL_REQUESTS } from '../src/testdata/two-tool-requests.js';

const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;

interface Engines {
  readonly toolindex: RankTools;
  readonly singleIntent: RankTools;
  readonly minisearch: RankTools;
}

function engines(tools: readonly Tool[]): Engines {
  return {
    toolindex: rankWith(indexOf(tools)),
    singleIntent: rankWith(indexOf(tools, { searcher: createBm25Searcher({ intents: 0 }) })),
    minisearch: minisearchRanker(tools),
  };
}

const rows: Record<string, string>[] = [];

async function line(
  label: string,
  both: Engines,
  measure: (rank: RankTools) => Promise<number>,
): Promise<void> {
  const ours = await measure(both.toolindex);
  const theirs = await measure(both.minisearch);
  rows.push({
    line: label,
    toolindex: percent(ours),
    'intents off': percent(await measure(both.singleIntent)),
    'minisearch tuned': percent(theirs),
    '': ours > theirs ? 'ahead' : ours === theirs ? 'level' : 'BEHIND',
  });
}

const twoTool = splitCases(TWO_TOOL_REQUESTS);
const ownTwoTool = splitCases(CATALOGUE_TWO_TOOL_REQUESTS);
const real = realTools();
const own = baseTools();
const pub = publicTools();
const pubRequests = publicRequests();
const pubMulti = publicMultiTools();
const pubMultiRequests = publicMultiToolRequests();
for (const [size, realSet, ownSet, pubSet, pubMultiSet] of [
  ['alone', real, own, pub, pubMulti],
  [
    '10k',
    withDistractors(real, 10_000),
    paddedCatalogue(10_000),
    withDistractors(pub, 10_000),
    withDistractors(pubMulti, 10_000),
  ],
] as const) {
  const realEngines = engines(realSet);
  const ownEngines = engines(ownSet);
  const pubEngines = engines(pubSet);
  const pubMultiEngines = engines(pubMultiSet);
  await line(`public (BFCL) single-tool top-1, ${size}`, pubEngines, (r) =>
    rateOf(r, pubRequests, 1),
  );
  await line(`public (BFCL) single-tool top-5, ${size}`, pubEngines, (r) =>
    rateOf(r, pubRequests, 5),
  );
  await line(`public (BFCL) multi-tool all in top-5, ${size}`, pubMultiEngines, (r) =>
    allRateOf(r, pubMultiRequests, 5),
  );
  await line(`real-world single-tool top-1, ${size}`, realEngines, (r) =>
    rateOf(r, REAL_WORLD_QUERIES, 1),
  );
  await line(`real-world single-tool top-5, ${size}`, realEngines, (r) =>
    rateOf(r, REAL_WORLD_QUERIES, 5),
  );
  await line(`two-tool held-out both in top-5, ${size}`, realEngines, (r) =>
    bothRateOf(r, twoTool.heldOut, 5),
  );
  await line(`fresh two-tool (evaluation) both in top-5, ${size}`, realEngines, (r) =>
    bothRateOf(r, FRESH_TWO_TOOL_REQUESTS, 5),
  );
  await line(`two-tool tuning both in top-5, ${size}`, realEngines, (r) =>
    bothRateOf(r, twoTool.tuning, 5),
  );
  await line(`own two-tool held-out both in top-5, ${size}`, ownEngines, (r) =>
    bothRateOf(r, ownTwoTool.heldOut, 5),
  );
  await line(`own two-tool tuning both in top-5, ${size}`, ownEngines, (r) =>
    bothRateOf(r, ownTwoTool.tuning, 5),
  );
  await line(`own implicit two-tool held-out both in top-5, ${size}`, ownEngines, (r) =>
    bothRateOf(r, IMPLICIT_TWO_TOOL_REQUESTS.heldOut, 5),
  );
  await line(`own implicit two-tool tuning both in top-5, ${size}`, ownEngines, (r) =>
    bothRateOf(r, IMPLICIT_TWO_TOOL_REQUESTS.tuning, 5),
  );
  await line(`own one need in clauses held-out top-5, ${size}`, ownEngines, (r) =>
    rateOf(r, ONE_NEED_CLAUSE_REQUESTS.heldOut, 5),
  );
  await line(`own held-out top-1, ${size}`, ownEngines, (r) => rateOf(r, HELD_OUT_QUERIES, 1));
  await line(`own held-out top-5, ${size}`, ownEngines, (r) => rateOf(r, HELD_OUT_QUERIES, 5));
  await line(`own tuning top-5, ${size}`, ownEngines, (r) =>
    rateOf(r, [...TUNING_QUERIES, ...RELEASED_QUERIES], 5),
  );
}
console.log(`held-out evaluation — ${new Date().toISOString()}, node ${process.version}`);
console.log(
  `public (BFCL live_simple sample): ${pub.length} tools, ${pubRequests.length} requests; BFCL live_parallel_multiple: ${pubMulti.length} tools, ${pubMultiRequests.length} requests; real tools: ${real.length}; real-world requests ${REAL_WORLD_QUERIES.length}; two-tool ${twoTool.heldOut.length} held out, ${twoTool.tuning.length} tuning; fresh two-tool ${FRESH_TWO_TOOL_REQUESTS.length}; own implicit two-tool ${IMPLICIT_TWO_TOOL_REQUESTS.heldOut.length} held out, ${IMPLICIT_TWO_TOOL_REQUESTS.tuning.length} tuning; own held-out ${HELD_OUT_QUERIES.length}`,
);
console.table(rows);
