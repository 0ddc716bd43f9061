/**
 * Learning from use: replays one half of a request set as sessions (search, then a call of the
 * intended tool when it is among the ten results shown) and measures top-1/top-5 on the other
 * half, before and after, in one run, with minisearch tuned on the measured half beside. Run with
 * `pnpm --filter @toolplane/toolindex bench:learning [words-tuning|words|older]`: `words-tuning`
 * runs only the tuning lines of the words sets (the only lines settings are chosen on), `words`
 * only the evaluation lines of learning-requests.ts, `older` the older sets; nothing runs all.
 */
import type { Tool } from '@toolplane/toolmodel';
import { createLearningSearcher } from '../src/learning-searcher.js';
import {
  indexOf,
  rankWith,
  rateOf,
  realTools,
  minisearchRanker,
  withDistractors,
} from '../src/testdata/evaluation.js';
import { LEARNING_REQUESTS } from '../src/testdata/learning-requests.js';
import { LEARNING_TUNING_REQUESTS } from '../src/testdata/learning-tuning-requests.js';
import { PARAPHRASE_QUERIES } from '../src/testdata/paraphrases.js';
import {
  HELD_OUT_QUERIES,
  RELEASED_QUERIES,
  TUNING_QUERIES,
  type QueryCase,
} from '../src/testdata/queries.js';
import { REAL_WORLD_QUERIES } from '../src/testdata/real-world-requests.js';
import { baseTools, paddedCatalogue } from '../src/testdata/scale-catalogue.js';
import { publicRequests, publicTools } from '../src/testdata/public-requests.js';
import { isHeldOut, splitCases } from '../src/testdata/split.js';

const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;
const SHOWN = 10;

/**
 * Words an agent that missed the tool would search with next: the tool's name, as it reads it
 * in a listing (`github:push_files` → `github push files`).
 */
const nameWords = (id: string): string => id.replace(/[^A-Za-z0-9]+/g, ' ');

async function measure(
  label: string,
  tools: readonly Tool[],
  replay: readonly QueryCase[],
  measured: readonly QueryCase[],
  secondSearch: boolean,
): Promise<Record<string, string>> {
  const learner = createLearningSearcher(
    process.env.LEARN_WEIGHT === undefined ? {} : { weight: Number(process.env.LEARN_WEIGHT) },
  );
  const baseline = minisearchRanker(tools);
  const index = indexOf(tools, { searcher: learner });
  const rank = rankWith(index);
  const before = [await rateOf(rank, measured, 1), await rateOf(rank, measured, 5)];
  let recorded = 0;
  for (const [i, [query, expected]] of replay.entries()) {
    const session = `replay-${i}`;
    const { results } = await index.search(query, { limit: SHOWN });
    learner.observeSearch(
      session,
      query,
      results.map((hit) => hit.id),
    );
    if (results.some((hit) => hit.id === expected)) {
      if (learner.observeCall(session, expected)) recorded++;
      continue;
    }
    if (!secondSearch) continue;
    const again = await index.search(nameWords(expected), { limit: SHOWN });
    learner.observeSearch(
      session,
      nameWords(expected),
      again.results.map((hit) => hit.id),
    );
    if (learner.observeCall(session, expected)) recorded++;
  }
  const after = [await rateOf(rank, measured, 1), await rateOf(rank, measured, 5)];
  return {
    set: label,
    replay: secondSearch ? 'a miss searches again by name' : 'one search',
    replayed: `${replay.length} (${recorded} followed by a call)`,
    measured: String(measured.length),
    'top-1 before': percent(before[0] as number),
    'top-1 after': percent(after[0] as number),
    'top-5 before': percent(before[1] as number),
    'top-5 after': percent(after[1] as number),
    'top-5 gain': `${(((after[1] as number) - (before[1] as number)) * 100).toFixed(1)} points`,
    'minisearch top-1 / top-5': `${percent(await rateOf(baseline, measured, 1))} / ${percent(await rateOf(baseline, measured, 5))}`,
  };
}

const which = process.argv[2];
const rows: Record<string, string>[] = [];
const wordsTuning = splitCases(LEARNING_TUNING_REQUESTS);
// The harm check (tuning data): paraphrases of the tools whose id hashes odd are replayed, the
// tuning requests of the other tools measured: what learning costs requests for tools not called.
const calledHalf = (id: string): boolean => isHeldOut(id);
const harmReplay = PARAPHRASE_QUERIES.filter(([, id]) => calledHalf(id));
const harmMeasured = [...TUNING_QUERIES, ...RELEASED_QUERIES].filter(([, id]) => !calledHalf(id));
const words = splitCases(LEARNING_REQUESTS);
for (const secondSearch of [false, true]) {
  if (which === undefined || which === 'words-tuning') {
    for (const size of [1_000, 10_000]) {
      rows.push(
        await measure(
          `words tuning, ${size / 1000}k: replay half → measured half`,
          paddedCatalogue(size),
          wordsTuning.tuning,
          wordsTuning.heldOut,
          secondSearch,
        ),
      );
    }
    for (const [size, tools] of [
      ['alone', baseTools()],
      ['10k', paddedCatalogue(10_000)],
    ] as const) {
      rows.push(
        await measure(
          `harm check, ${size}: half the tools' paraphrases → the other tools' tuning requests`,
          tools,
          harmReplay,
          harmMeasured,
          secondSearch,
        ),
      );
    }
  }
  if (which === undefined || which === 'words') {
    for (const size of [1_000, 10_000]) {
      rows.push(
        await measure(
          `words, ${size / 1000}k: replay half → measured half`,
          withDistractors(realTools(), size),
          words.tuning,
          words.heldOut,
          secondSearch,
        ),
      );
    }
  }
}
if (which === undefined || which === 'older') {
  const ownReplay = [...TUNING_QUERIES, ...RELEASED_QUERIES, ...PARAPHRASE_QUERIES];
  const real = splitCases(REAL_WORLD_QUERIES);
  // The public sample has several real requests per function, so one half can teach the other.
  const pub = splitCases(publicRequests());
  for (const secondSearch of [false, true]) {
    rows.push(
      await measure(
        'own, 10k: tuning sets → held-out',
        paddedCatalogue(10_000),
        ownReplay,
        HELD_OUT_QUERIES,
        secondSearch,
      ),
      await measure(
        'own, 100k: tuning sets → held-out',
        paddedCatalogue(100_000),
        ownReplay,
        HELD_OUT_QUERIES,
        secondSearch,
      ),
      await measure(
        'real-world, alone: one half → the other',
        realTools(),
        real.tuning,
        real.heldOut,
        secondSearch,
      ),
      await measure(
        'public (BFCL), alone: one half → the other',
        publicTools(),
        pub.tuning,
        pub.heldOut,
        secondSearch,
      ),
      await measure(
        'public (BFCL), 10k: one half → the other',
        withDistractors(publicTools(), 10_000),
        pub.tuning,
        pub.heldOut,
        secondSearch,
      ),
      await measure(
        'real-world, 10k: one half → the other',
        withDistractors(realTools(), 10_000),
        real.tuning,
        real.heldOut,
        secondSearch,
      ),
    );
  }
}
console.log(`learning from use — ${new Date().toISOString()}, node ${process.version}`);
console.table(rows);
