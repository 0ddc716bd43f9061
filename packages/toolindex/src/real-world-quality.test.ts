import { describe, expect, it } from 'vitest';
import {
  allRateOf,
  bothRateOf,
  indexOf,
  minisearchRanker,
  rankWith,
  rateOf,
  realTools,
  withDistractors,
} from './testdata/evaluation.js';
import {
  publicMultiToolRequests,
  publicMultiTools,
  publicRequests,
  publicTools,
} from './testdata/public-requests.js';
import { REAL_WORLD_QUERIES, TWO_TOOL_REQUESTS } from './testdata/real-world-requests.js';
import { splitCases } from './testdata/split.js';

// Floors a little below what the default searcher reached when they were set (bench:held-out
// prints the exact figures): real-world top-5 71.3% alone and 55.0% among 10k tools, two-tool
// held-out both in the top 5 65.2% alone and 43.5% among 10k. Rates only: held-out misses are
// never printed. Raise the floors when ranking improves.
const FLOORS = {
  alone: { singleTop5: 0.7, twoTool: 0.6 },
  tenThousand: { singleTop5: 0.53, twoTool: 0.4 },
  // The vendored public samples (BFCL): live_simple top-5 89.7% alone, 81.4% among 10k;
  // live_parallel_multiple, every tool in the top 5, 66.7% alone and 80.0% among 10k.
  public: { alone: 0.85, tenThousand: 0.76, multiAlone: 0.6, multiTenThousand: 0.7 },
};

describe('search quality on real tools', () => {
  const twoTool = splitCases(TWO_TOOL_REQUESTS).heldOut;

  it('keeps its rates on the real tools alone, ahead of minisearch on single tools', async () => {
    const tools = realTools();
    const rank = rankWith(indexOf(tools));
    const single = await rateOf(rank, REAL_WORLD_QUERIES, 5);
    expect(single).toBeGreaterThanOrEqual(FLOORS.alone.singleTop5);
    expect(single).toBeGreaterThan(await rateOf(minisearchRanker(tools), REAL_WORLD_QUERIES, 5));
    expect(await bothRateOf(rank, twoTool, 5)).toBeGreaterThanOrEqual(FLOORS.alone.twoTool);
  });

  it('keeps its rates among 10,000 tools', async () => {
    const rank = rankWith(indexOf(withDistractors(realTools(), 10_000)));
    expect(await rateOf(rank, REAL_WORLD_QUERIES, 5)).toBeGreaterThanOrEqual(
      FLOORS.tenThousand.singleTop5,
    );
    expect(await bothRateOf(rank, twoTool, 5)).toBeGreaterThanOrEqual(FLOORS.tenThousand.twoTool);
  }, 60_000);

  it('keeps its top-5 rate on the public sample, ahead of minisearch', async () => {
    const tools = publicTools();
    const requests = publicRequests();
    const alone = await rateOf(rankWith(indexOf(tools)), requests, 5);
    expect(alone).toBeGreaterThanOrEqual(FLOORS.public.alone);
    expect(alone).toBeGreaterThan(await rateOf(minisearchRanker(tools), requests, 5));
    const crowded = rankWith(indexOf(withDistractors(tools, 10_000)));
    expect(await rateOf(crowded, requests, 5)).toBeGreaterThanOrEqual(FLOORS.public.tenThousand);
  }, 60_000);

  it('finds every tool of the public multi-tool requests in the top 5', async () => {
    const tools = publicMultiTools();
    const requests = publicMultiToolRequests();
    expect(await allRateOf(rankWith(indexOf(tools)), requests, 5)).toBeGreaterThanOrEqual(
      FLOORS.public.multiAlone,
    );
    const crowded = rankWith(indexOf(withDistractors(tools, 10_000)));
    expect(await allRateOf(crowded, requests, 5)).toBeGreaterThanOrEqual(
      FLOORS.public.multiTenThousand,
    );
  }, 60_000);
});
