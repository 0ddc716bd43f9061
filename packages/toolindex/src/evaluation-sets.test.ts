import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexOf, realTools } from './testdata/evaluation.js';
import { LEARNING_REQUESTS } from './testdata/learning-requests.js';
import { LEARNING_TUNING_REQUESTS } from './testdata/learning-tuning-requests.js';
import { PARAPHRASE_QUERIES, TYPO_QUERIES } from './testdata/paraphrases.js';
import { HELD_OUT_QUERIES, RELEASED_QUERIES, TUNING_QUERIES } from './testdata/queries.js';
import { REAL_WORLD_QUERIES, TWO_TOOL_REQUESTS } from './testdata/real-world-requests.js';
import {
  publicMultiToolRequests,
  publicMultiTools,
  publicRequests,
  publicTools,
} from './testdata/public-requests.js';
import { paddedCatalogue } from './testdata/scale-catalogue.js';
import { isHeldOut, splitCases } from './testdata/split.js';
import { ONE_NEED_CLAUSE_REQUESTS } from './testdata/one-need-clause-requests.js';
import { IMPLICIT_TWO_TOOL_REQUESTS } from './testdata/two-tool-implicit-requests.js';
import { FRESH_TWO_TOOL_REQUESTS } from './testdata/two-tool-fresh-requests.js';
import { CATALOGUE_TWO_TOOL_REQUESTS } from './testdata/two-tool-requests.js';

const normalise = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** Requests that guide tuning: their misses may be read and ranking changed for them. */
const TUNING_TEXTS = [
  ...TUNING_QUERIES,
  ...RELEASED_QUERIES,
  ...PARAPHRASE_QUERIES,
  ...TYPO_QUERIES,
  ...splitCases(TWO_TOOL_REQUESTS).tuning,
  ...IMPLICIT_TWO_TOOL_REQUESTS.tuning,
  ...ONE_NEED_CLAUSE_REQUESTS.tuning,
].map(([query]) => normalise(query));

/** Requests that are only ever measured as a rate. */
const HELD_OUT_TEXTS = [
  ...HELD_OUT_QUERIES,
  ...REAL_WORLD_QUERIES,
  ...splitCases(TWO_TOOL_REQUESTS).heldOut,
  ...publicRequests(),
  ...publicMultiToolRequests(),
  ...LEARNING_REQUESTS,
  ...FRESH_TWO_TOOL_REQUESTS,
  ...IMPLICIT_TWO_TOOL_REQUESTS.heldOut,
  ...ONE_NEED_CLAUSE_REQUESTS.heldOut,
].map(([query]) => normalise(query));

// Tuning requests written before the split rule existed, which the rule would hold out: they
// stay tuning (they were tuned on), but no new tuning request may land on the held-out side.
const LEGACY_TUNING_ON_HELD_OUT_SIDE = 114;

describe('tuning and held-out sets', () => {
  it('splits by the hash of the request text alone', () => {
    expect(isHeldOut('Merge  the PR')).toBe(isHeldOut('merge the pr'));
    const split = splitCases(TWO_TOOL_REQUESTS);
    expect(split.tuning.length + split.heldOut.length).toBe(TWO_TOOL_REQUESTS.length);
    expect(split.heldOut.every(([query]) => isHeldOut(query))).toBe(true);
    expect(split.tuning.some(([query]) => isHeldOut(query))).toBe(false);
    // Neither side is empty or nearly so.
    expect(split.heldOut.length / TWO_TOOL_REQUESTS.length).toBeGreaterThan(0.3);
    expect(split.heldOut.length / TWO_TOOL_REQUESTS.length).toBeLessThan(0.7);
  });

  it('holds out only requests the rule holds out, or sets kept for evaluation', () => {
    expect(HELD_OUT_QUERIES.every(([query]) => isHeldOut(query))).toBe(true);
    expect(RELEASED_QUERIES.some(([query]) => isHeldOut(query))).toBe(false);
  });

  it('uses no held-out request for tuning', () => {
    const tuning = new Set(TUNING_TEXTS);
    expect(HELD_OUT_TEXTS.filter((query) => tuning.has(query))).toEqual([]);
    const onHeldOutSide = TUNING_TEXTS.filter((query) => isHeldOut(query));
    expect(onHeldOutSide.length).toBeLessThanOrEqual(LEGACY_TUNING_ON_HELD_OUT_SIDE);
  });

  it('names no held-out request in the searcher code or its tuning tests', () => {
    const dir = new URL('./', import.meta.url);
    const sources = readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && file !== 'evaluation-sets.test.ts')
      .map((file) => normalise(readFileSync(new URL(file, dir), 'utf8')));
    const named = HELD_OUT_TEXTS.filter((query) =>
      sources.some((source) => source.includes(query)),
    );
    expect(named).toEqual([]);
  });

  it('names only tools of the real catalogue', () => {
    const index = indexOf(realTools());
    const ids = [
      ...REAL_WORLD_QUERIES.map(([, id]) => id),
      ...TWO_TOOL_REQUESTS.flatMap(([, first, second]) => [first, second]),
      ...FRESH_TWO_TOOL_REQUESTS.flatMap(([, first, second]) => [first, second]),
    ];
    expect(ids.filter((id) => !index.hasTool(id))).toEqual([]);
  });

  it('keeps the public sample apart: every request names one of its tools, none is tuning', () => {
    const index = indexOf(publicTools());
    const requests = publicRequests();
    expect(requests.length).toBeGreaterThanOrEqual(90);
    expect(requests.filter(([, id]) => !index.hasTool(id))).toEqual([]);
    const multi = indexOf(publicMultiTools());
    const multiIds = publicMultiToolRequests().flatMap(([, ...ids]) => ids);
    expect(multiIds.filter((id) => !multi.hasTool(id))).toEqual([]);
  });

  it('keeps the learning sets apart: tuning requests over other tools, several per tool', () => {
    const real = indexOf(realTools());
    expect(LEARNING_REQUESTS.filter(([, id]) => !real.hasTool(id))).toEqual([]);
    const own = indexOf(paddedCatalogue(1_000));
    expect(LEARNING_TUNING_REQUESTS.filter(([, id]) => !own.hasTool(id))).toEqual([]);
    // No tool of the evaluation set is tuned on, and no request is in both sets.
    const evaluated = new Set(LEARNING_REQUESTS.map(([, id]) => id));
    expect(LEARNING_TUNING_REQUESTS.filter(([, id]) => evaluated.has(id))).toEqual([]);
    const tuning = new Set([
      ...TUNING_TEXTS,
      ...LEARNING_TUNING_REQUESTS.map(([q]) => normalise(q)),
    ]);
    expect(LEARNING_REQUESTS.filter(([query]) => tuning.has(normalise(query)))).toEqual([]);
    // Learning can only show on a tool the replay half called: most measured requests have one.
    const { tuning: replay, heldOut: measured } = splitCases(LEARNING_REQUESTS);
    const replayed = new Set(replay.map(([, id]) => id));
    expect(measured.filter(([, id]) => replayed.has(id)).length).toBeGreaterThan(
      measured.length * 0.75,
    );
  });

  it('keeps the fresh two-tool set apart: new requests, two different real tools each', () => {
    expect(FRESH_TWO_TOOL_REQUESTS.length).toBeGreaterThanOrEqual(40);
    const older = new Set(
      [...TWO_TOOL_REQUESTS, ...CATALOGUE_TWO_TOOL_REQUESTS].map(([query]) => normalise(query)),
    );
    const texts = FRESH_TWO_TOOL_REQUESTS.map(([query]) => normalise(query));
    expect(texts.filter((query) => older.has(query))).toEqual([]);
    expect(new Set(texts).size).toBe(texts.length);
    expect(FRESH_TWO_TOOL_REQUESTS.filter(([, first, second]) => first === second)).toEqual([]);
  });

  it('splits the implicit two-tool and one-need sets by the rule, over the quality catalogue', () => {
    const { tuning, heldOut } = IMPLICIT_TWO_TOOL_REQUESTS;
    expect(tuning.some(([query]) => isHeldOut(query))).toBe(false);
    expect(heldOut.every(([query]) => isHeldOut(query))).toBe(true);
    const own = indexOf(paddedCatalogue(1_000));
    const ids = [...tuning, ...heldOut].flatMap(([, first, second]) => [first, second]);
    const oneNeed = ONE_NEED_CLAUSE_REQUESTS;
    ids.push(...[...oneNeed.tuning, ...oneNeed.heldOut].map(([, id]) => id));
    expect(ids.filter((id) => !own.hasTool(id))).toEqual([]);
    expect(oneNeed.tuning.some(([query]) => isHeldOut(query))).toBe(false);
  });
});
