import { describe, expect, it } from 'vitest';
import { createBm25Searcher } from './bm25-searcher.js';
import type { ToolIndex } from './index-types.js';
import { catalogueIndex } from './testdata/catalogue.js';
import { PARAPHRASE_QUERIES, TYPO_QUERIES } from './testdata/paraphrases.js';
import { HELD_OUT_QUERIES, RELEASED_QUERIES, TUNING_QUERIES } from './testdata/queries.js';
import { hitRate } from './testdata/quality.js';
import { paddedCatalogue } from './testdata/scale-catalogue.js';
import { createIndex } from './tool-index.js';

// Floors sit a little below what the default BM25 searcher reaches (the bench prints the exact
// figures), so a ranking change that loses ground fails here. Raise them when ranking improves.
// Reached on the day they were set: on the catalogue alone tuning top-5 100% / top-1 90.6%,
// paraphrases top-5 96.1%, typos top-5 90% with typo correction on. The held-out floors were
// set again when split.ts's rule chose the held-out requests (79 of the 144 written as held
// out): 92.4% on the catalogue alone, 87.3% padded to 10k tools, 81.0% padded to 100k.
const FLOORS = {
  catalogue: {
    tuningTop1: 0.89,
    tuningTop5: 0.98,
    paraphrasesTop5: 0.94,
    typosTop5: 0.85,
    heldOutTop5: 0.91,
  },
  tenThousand: { heldOutTop5: 0.86 },
  hundredThousand: { heldOutTop5: 0.8 },
};

function paddedIndex(size: number): ToolIndex {
  const index = createIndex();
  index.registerTools(
    paddedCatalogue(size).map((tool) => ({
      tool,
      backend: { kind: 'mcp', mcp: { serverName: tool.namespace ?? 'padding' } } as const,
    })),
  );
  return index;
}

function report(label: string, rate: number, misses: readonly string[]): void {
  console.log(`${label}: ${(rate * 100).toFixed(1)}%${misses.length > 0 ? '' : ' (no misses)'}`);
}

describe('search quality', () => {
  it('finds the intended tool for the tuning and held-out requests on the catalogue', async () => {
    const index = catalogueIndex();
    expect(index.size).toBeGreaterThan(140);
    const top1 = await hitRate(index, TUNING_QUERIES, 1);
    const top5 = await hitRate(index, TUNING_QUERIES, 5);
    const paraphrases = await hitRate(index, PARAPHRASE_QUERIES, 5);
    // Typo correction is opt-in.
    const typing = catalogueIndex({ searcher: createBm25Searcher({ typoWeight: 0.7 }) });
    const typos = await hitRate(typing, TYPO_QUERIES, 5);
    const heldOut = await hitRate(index, HELD_OUT_QUERIES, 5);
    // Tuning misses are printed to help whoever tunes; held-out misses never are.
    console.log(`tuning misses (top-1):\n  ${top1.misses.join('\n  ')}`);
    console.log(`paraphrase misses (top-5):\n  ${paraphrases.misses.join('\n  ')}`);
    console.log(`typo misses (top-5):\n  ${typos.misses.join('\n  ')}`);
    report('catalogue, paraphrases top-5', paraphrases.rate, paraphrases.misses);
    report('catalogue, typos top-5', typos.rate, typos.misses);
    report('catalogue, held-out top-5', heldOut.rate, heldOut.misses);
    expect(top1.rate).toBeGreaterThanOrEqual(FLOORS.catalogue.tuningTop1);
    expect(top5.rate).toBeGreaterThanOrEqual(FLOORS.catalogue.tuningTop5);
    expect(paraphrases.rate).toBeGreaterThanOrEqual(FLOORS.catalogue.paraphrasesTop5);
    expect(typos.rate).toBeGreaterThanOrEqual(FLOORS.catalogue.typosTop5);
    expect(heldOut.rate).toBeGreaterThanOrEqual(FLOORS.catalogue.heldOutTop5);
  });

  it('keeps the held-out top-5 hit rate among 10,000 tools', async () => {
    const index = paddedIndex(10_000);
    expect(index.size).toBe(10_000);
    const heldOut = await hitRate(index, HELD_OUT_QUERIES, 5);
    report('10k tools, held-out top-5', heldOut.rate, heldOut.misses);
    expect(heldOut.rate).toBeGreaterThanOrEqual(FLOORS.tenThousand.heldOutTop5);
  });

  it('keeps the held-out top-5 hit rate among 100,000 tools', async () => {
    const index = paddedIndex(100_000);
    expect(index.size).toBe(100_000);
    const heldOut = await hitRate(index, HELD_OUT_QUERIES, 5);
    report('100k tools, held-out top-5', heldOut.rate, heldOut.misses);
    expect(heldOut.rate).toBeGreaterThanOrEqual(FLOORS.hundredThousand.heldOutTop5);
  }, 120_000);

  it('keeps the tuning and held-out sets apart', () => {
    const tuning = new Set(
      [...TUNING_QUERIES, ...RELEASED_QUERIES, ...PARAPHRASE_QUERIES, ...TYPO_QUERIES].map(
        ([query]) => query.toLowerCase(),
      ),
    );
    const overlap = HELD_OUT_QUERIES.filter(([query]) => tuning.has(query.toLowerCase()));
    expect(overlap).toEqual([]);
  });

  it('names only tools that exist in the catalogue', () => {
    const index = catalogueIndex();
    const unknown = [
      ...TUNING_QUERIES,
      ...RELEASED_QUERIES,
      ...PARAPHRASE_QUERIES,
      ...TYPO_QUERIES,
      ...HELD_OUT_QUERIES,
    ]
      .map(([, expected]) => expected)
      .filter((id) => !index.hasTool(id));
    expect(unknown).toEqual([]);
  });
});
