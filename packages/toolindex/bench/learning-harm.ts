/**
 * The tuning-side harm check of learning from use: every tuning-side request (tuning, released,
 * paraphrase and words-tuning requests) for the tools whose id hashes odd is replayed as a
 * session (search; a session that missed searches again by the tool's name; then the call),
 * and the tuning-side requests for every OTHER tool are measured before and after: top-1 and
 * top-5, with the requests that changed top-1 counted both ways. No held-out set is loaded.
 * Run with `node --conditions=@toolplane/source --import tsx bench/learning-harm.ts`.
 */
import type { Tool } from '@toolplane/toolmodel';
import { createLearningSearcher } from '../src/learning-searcher.js';
import { indexOf } from '../src/testdata/evaluation.js';
import { LEARNING_TUNING_REQUESTS } from '../src/testdata/learning-tuning-requests.js';
import { PARAPHRASE_QUERIES } from '../src/testdata/paraphrases.js';
import { RELEASED_QUERIES, TUNING_QUERIES, type QueryCase } from '../src/testdata/queries.js';
import { baseTools, paddedCatalogue } from '../src/testdata/scale-catalogue.js';
import { isHeldOut } from '../src/testdata/split.js';

const SHOWN = 10;
const nameWords = (id: string): string => id.replace(/[^A-Za-z0-9]+/g, ' ');
const percent = (rate: number): string => `${(rate * 100).toFixed(1)}%`;
const verbose = process.env.VERBOSE === '1';

const all: QueryCase[] = [
  ...TUNING_QUERIES,
  ...RELEASED_QUERIES,
  ...PARAPHRASE_QUERIES,
  ...LEARNING_TUNING_REQUESTS,
];
const called = (id: string): boolean => isHeldOut(id);
const replay = all.filter(([, id]) => called(id));
const others = all.filter(([, id]) => !called(id));

async function harm(label: string, tools: readonly Tool[]): Promise<Record<string, string>> {
  const learner = createLearningSearcher();
  const index = indexOf(tools, { searcher: learner });
  const top = async (query: string, k: number): Promise<string[]> =>
    (await index.search(query, { limit: k })).results.map((hit) => hit.id);
  const before = await Promise.all(others.map(([query]) => top(query, 5)));
  for (const [i, [query, expected]] of replay.entries()) {
    const session = `harm-${i}`;
    const first = await top(query, SHOWN);
    learner.observeSearch(session, query, first);
    if (!first.includes(expected)) {
      const again = await top(nameWords(expected), SHOWN);
      learner.observeSearch(session, nameWords(expected), again);
    }
    learner.observeCall(session, expected);
  }
  const after = await Promise.all(others.map(([query]) => top(query, 5)));
  let [top1Before, top1After, top5Before, top5After, lost, won] = [0, 0, 0, 0, 0, 0];
  others.forEach(([query, expected], i) => {
    const b = before[i] as string[];
    const a = after[i] as string[];
    if (b[0] === expected) top1Before++;
    if (a[0] === expected) top1After++;
    if (b.includes(expected)) top5Before++;
    if (a.includes(expected)) top5After++;
    if (b[0] === expected && a[0] !== expected) {
      lost++;
      if (verbose) console.log(`  lost: ${query} → ${expected}; now ${a.slice(0, 3).join(' ')}`);
    }
    if (b[0] !== expected && a[0] === expected) won++;
    if (verbose && b.includes(expected) && !a.includes(expected))
      console.log(`  out of top 5: ${query} → ${expected}; now ${a.join(' ')}`);
  });
  const n = others.length;
  return {
    check: label,
    replayed: String(replay.length),
    measured: String(n),
    'top-1': `${percent(top1Before / n)} → ${percent(top1After / n)}`,
    'top-5': `${percent(top5Before / n)} → ${percent(top5After / n)}`,
    'top-1 lost / won': `${lost} / ${won}`,
  };
}

const rows = [await harm('alone', baseTools()), await harm('10k', paddedCatalogue(10_000))];
console.table(rows);
