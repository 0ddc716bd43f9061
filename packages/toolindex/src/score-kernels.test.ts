import { describe, expect, it } from 'vitest';
import { createBm25Searcher } from './bm25-searcher.js';
import {
  createScratch,
  finishScores,
  NAMESPACE_STATS,
  offerAll,
  type Finish,
} from './score-kernels.js';
import { packMeta } from './postings.js';
import { HELD_OUT_QUERIES } from './testdata/queries.js';
import { paddedCatalogue, searchDocumentOf } from './testdata/scale-catalogue.js';
import { random } from './testdata/synthetic-catalogue.js';
import { createTopHits, takeHits } from './top-hits.js';

interface Case {
  readonly slots: number;
  readonly touched: number;
  readonly namespaces: number;
  readonly limit: number;
  readonly namespacePrior: number;
  readonly priorMatches: number;
  /** Some scores are 0 (a query word weighted 0), so a namespace's sum can stay 0. */
  readonly zeros?: boolean;
}

/** Random scores on few distinct values (so ties abound), in few or many namespaces. */
function runCase(seed: number, c: Case): { kernel: string[]; brute: string[] } {
  const next = random(seed);
  const docs = Array.from({ length: c.slots }, (_, slot) => ({ id: `t${(slot * 7919) % 1000}` }));
  const scratch = createScratch(c.slots);
  const namespaceOf = new Int32Array(c.slots);
  const live = new Uint8Array(c.slots).fill(1);
  const meta = new Int32Array(c.slots);
  const order = Array.from({ length: c.slots }, (_, slot) => slot).sort(() => next() - 0.5);
  for (let i = 0; i < c.touched; i++) {
    const slot = order[i] as number;
    scratch.touched[i] = slot;
    scratch.denseOf[slot] = i + 1;
    scratch.score[i] = Math.floor(next() * 6) * 0.75 + (c.zeros === true ? 0 : 0.25);
    scratch.mask[i] = 1;
    namespaceOf[slot] = next() < 0.1 ? -1 : Math.floor(next() * c.namespaces);
    if (next() < 0.05) live[slot] = 0;
    meta[slot] = packMeta(namespaceOf[slot], 0, live[slot] === 1);
  }
  const finish: Finish = {
    meta,
    maskWeight: undefined,
    groupWeight: new Float64Array(1),
    totalWeight: 0,
    coverage: 0,
    nameMatch: 0,
    namespacePrior: c.namespacePrior,
    priorMatches: c.priorMatches,
    stats: new Float64Array(c.namespaces * NAMESPACE_STATS),
    namespaces: new Int32Array(c.namespaces),
    namespaceCount: 0,
    loose: -1,
  };
  // Brute force: every live slot's final score, written out from the prior's definition.
  const raw = new Map<number, number>();
  for (let i = 0; i < c.touched; i++) {
    const slot = scratch.touched[i] as number;
    if (live[slot] === 1) raw.set(slot, scratch.score[i] as number);
  }
  const brute = [...raw]
    .map(([slot, score]) => {
      const namespace = namespaceOf[slot] as number;
      const others = [...raw]
        .filter(([other]) => other !== slot && namespace >= 0 && namespaceOf[other] === namespace)
        .map(([, s]) => s);
      let final = score;
      if (c.namespacePrior > 0 && namespace >= 0) {
        const otherBest = others.length === 0 ? 0 : Math.max(...others);
        const sum = others.reduce((a, b) => a + b, 0);
        // The kernel subtracts a slot's score from its namespace's sum: the same arithmetic.
        const average = (sum + score - score) / c.priorMatches;
        final += c.namespacePrior * Math.min(average, otherBest);
      }
      return { id: docs[slot]?.id ?? '', slot, final };
    })
    .sort((a, b) => b.final - a.final || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, c.limit)
    .map((hit) => `${hit.id}=${hit.final.toFixed(9)}`);
  finishScores(scratch, c.touched, finish);
  const top = createTopHits(c.limit, docs);
  offerAll(scratch, finish, top);
  const kernel = takeHits(top).map((hit) => `${hit.id}=${hit.score.toFixed(9)}`);
  expect(scratch.denseOf.every((value) => value === 0)).toBe(true);
  return { kernel, brute };
}

describe('offerAll', () => {
  it('keeps exactly the best hits a brute-force scorer finds, ties and priors included', () => {
    const cases: Case[] = [
      { slots: 400, touched: 300, namespaces: 3, limit: 5, namespacePrior: 0.5, priorMatches: 8 },
      { slots: 400, touched: 400, namespaces: 40, limit: 1, namespacePrior: 1, priorMatches: 1 },
      { slots: 300, touched: 120, namespaces: 10, limit: 20, namespacePrior: 0.3, priorMatches: 3 },
      { slots: 200, touched: 200, namespaces: 5, limit: 6, namespacePrior: 0, priorMatches: 8 },
      { slots: 50, touched: 10, namespaces: 2, limit: 30, namespacePrior: 0.5, priorMatches: 8 },
      {
        slots: 300,
        touched: 250,
        namespaces: 30,
        limit: 8,
        namespacePrior: 0.5,
        priorMatches: 8,
        zeros: true,
      },
    ];
    for (let seed = 1; seed <= 40; seed++) {
      for (const c of cases) {
        const { kernel, brute } = runCase(seed, c);
        expect(kernel).toEqual(brute);
      }
    }
  });
});

describe('search at 10k tools', () => {
  it('gives each held-out query at 10k tools the top 5 of a search keeping 16', () => {
    const searcher = createBm25Searcher();
    for (const tool of paddedCatalogue(10_000)) {
      const doc = searchDocumentOf(tool);
      searcher.upsert(doc);
    }
    let compared = 0;
    for (const [query] of HELD_OUT_QUERIES) {
      // Up to 16 hits the searcher gathers the same candidates; only the kept hits differ.
      const wide = searcher.search({ text: query, limit: 16 }).slice(0, 5);
      const narrow = searcher.search({ text: query, limit: 5 });
      expect(narrow).toEqual(wide);
      if (narrow.length === 5) compared++;
    }
    expect(compared).toBeGreaterThan(HELD_OUT_QUERIES.length / 2);
  });
});
