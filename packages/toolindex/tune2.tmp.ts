import { createLearningSearcher } from './src/learning-searcher.js';
import { indexOf, rankWith, rateOf } from './src/testdata/evaluation.js';
import { paddedCatalogue } from './src/testdata/scale-catalogue.js';
import { LEARNING_TUNING_REQUESTS } from './src/testdata/learning-tuning-requests.js';
import { TUNING_QUERIES, RELEASED_QUERIES } from './src/testdata/queries.js';
import { PARAPHRASE_QUERIES } from './src/testdata/paraphrases.js';
import { splitCases } from './src/testdata/split.js';
const s = splitCases(LEARNING_TUNING_REQUESTS);
const other = [...TUNING_QUERIES, ...RELEASED_QUERIES, ...PARAPHRASE_QUERIES];
const nameWords = (id: string) => id.replace(/[^A-Za-z0-9]+/g, ' ');
const pct = (x: number) => (x * 100).toFixed(1);
const out: string[] = [];
for (const size of [1000, 10000]) {
  const learner = createLearningSearcher(process.env.LEARN_WEIGHT === undefined ? {} : { weight: Number(process.env.LEARN_WEIGHT) });
  const index = indexOf(paddedCatalogue(size), { searcher: learner });
  const rank = rankWith(index);
  const m = async () => [await rateOf(rank, s.heldOut, 1), await rateOf(rank, s.heldOut, 5), await rateOf(rank, other, 1), await rateOf(rank, other, 5)];
  const before = await m();
  for (const [i, [q, e]] of s.tuning.entries()) {
    const sess = `r${i}`;
    const { results } = await index.search(q, { limit: 10 });
    learner.observeSearch(sess, q, results.map(h => h.id));
    if (results.some(h => h.id === e)) { learner.observeCall(sess, e); continue; }
    const again = await index.search(nameWords(e), { limit: 10 });
    learner.observeSearch(sess, nameWords(e), again.results.map(h => h.id));
    learner.observeCall(sess, e);
  }
  const after = await m();
  if (process.env.DETAIL === '1' && size === 10000) for (const [q, e] of s.heldOut) { const r = (await index.search(q, { limit: 5 })).results.map(h => `${h.id}@${h.score.toFixed(1)}`); if (!r.some(x => x.startsWith(e + '@'))) console.log('MISS', q, '=>', e, '|', r.slice(0,3).join(' ')); }
  out.push(`${size}: words t1 ${pct(before[0])}→${pct(after[0])} t5 ${pct(before[1])}→${pct(after[1])} | other t1 ${pct(before[2])}→${pct(after[2])} t5 ${pct(before[3])}→${pct(after[3])}`);
}
console.log(out.join('  ||  '));
