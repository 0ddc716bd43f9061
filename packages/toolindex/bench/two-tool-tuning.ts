/**
 * The tuning side of multi-intent search, and nothing else: the tuning halves of both two-tool
 * sets (both tools in the top 5, each miss printed with the five shown), and top-1/top-5 of the
 * tuning, released and paraphrase single-tool requests, alone and at 10k. Settings of the
 * multi-intent ranking are chosen here; held-out sets are never loaded. Options for the BM25
 * searcher may be given as JSON in `BM25`. Run with
 * `node --conditions=@toolplane/source --import tsx bench/two-tool-tuning.ts`.
 */
import type { Tool } from '@toolplane/toolmodel';
import { createBm25Searcher } from '../src/bm25-searcher.js';
import type { Bm25Options } from '../src/bm25-options.js';
import { indexOf, rankWith, realTools, withDistractors } from '../src/testdata/evaluation.js';
import { LEARNING_TUNING_REQUESTS } from '../src/testdata/learning-tuning-requests.js';
import { PARAPHRASE_QUERIES } from '../src/testdata/paraphrases.js';
import { RELEASED_QUERIES, TUNING_QUERIES, type QueryCase } from '../src/testdata/queries.js';
import { TWO_TOOL_REQUESTS, type TwoToolCase } from '../src/testdata/real-world-requests.js';
import { baseTools, paddedCatalogue } from '../src/testdata/scale-catalogue.js';
import { splitCases } from '../src/testdata/split.js';
import { ONE_NEED_CLAUSE_REQUESTS } from '../src/testdata/one-need-clause-requests.js';
import { IMPLICIT_TWO_TOOL_REQUESTS } from '../src/testdata/two-tool-implicit-requests.js';
import { CATALOGUE_TWO_TOOL_REQUESTS } from '../src/testdata/two-tool-requests.js';

const options = JSON.parse(process.env.BM25 ?? '{}') as Bm25Options;
const verbose = process.env.VERBOSE === '1';
const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;

type Row = readonly [label: string, value: string];

async function both(
  label: string,
  tools: readonly Tool[],
  cases: readonly TwoToolCase[],
): Promise<Row> {
  const rank = rankWith(indexOf(tools, { searcher: createBm25Searcher(options) }));
  let hits = 0;
  for (const [query, first, second] of cases) {
    const ids = await rank(query, 5);
    if (ids.includes(first) && ids.includes(second)) hits++;
    else if (verbose)
      console.log(`  miss ${label}: ${query} → ${first} ${second}\n    ${ids.join(' ')}`);
  }
  return [label, percent(hits / cases.length)];
}

async function single(
  label: string,
  tools: readonly Tool[],
  cases: readonly QueryCase[],
): Promise<Row> {
  const rank = rankWith(indexOf(tools, { searcher: createBm25Searcher(options) }));
  let top1 = 0;
  let top5 = 0;
  let signature = 0;
  for (const [query, expected] of cases) {
    const ids = await rank(query, 5);
    if (ids[0] === expected) top1++;
    if (ids.includes(expected)) top5++;
    for (const ch of ids.join(',')) signature = (Math.imul(signature, 31) + ch.charCodeAt(0)) | 0;
  }
  return [
    label,
    `${percent(top1 / cases.length)} / ${percent(top5 / cases.length)} #${(signature >>> 0).toString(16)}`,
  ];
}

const real = realTools();
const own = baseTools();
const rows: Row[] = [];
for (const [size, realSet, ownSet] of [
  ['alone', real, own],
  ['10k', withDistractors(real, 10_000), paddedCatalogue(10_000)],
] as const) {
  rows.push(await both(`two-tool tuning, ${size}`, realSet, splitCases(TWO_TOOL_REQUESTS).tuning));
  rows.push(
    await both(
      `own two-tool tuning, ${size}`,
      ownSet,
      splitCases(CATALOGUE_TWO_TOOL_REQUESTS).tuning,
    ),
  );
  rows.push(
    await both(`implicit two-tool tuning, ${size}`, ownSet, IMPLICIT_TWO_TOOL_REQUESTS.tuning),
  );
  rows.push(
    await single(`tuning+released top-1/5, ${size}`, ownSet, [
      ...TUNING_QUERIES,
      ...RELEASED_QUERIES,
    ]),
  );
  rows.push(await single(`paraphrases top-1/5, ${size}`, ownSet, PARAPHRASE_QUERIES));
  rows.push(
    await single(`one need in clauses top-1/5, ${size}`, ownSet, ONE_NEED_CLAUSE_REQUESTS.tuning),
  );
  rows.push(await single(`words tuning top-1/5, ${size}`, ownSet, LEARNING_TUNING_REQUESTS));
}
for (const [label, value] of rows) console.log(`${label.padEnd(34)} ${value}`);
