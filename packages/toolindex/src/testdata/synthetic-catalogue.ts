import type { Tool } from '@toolplane/toolmodel';

/** A seeded generator, so every run benchmarks the same catalogue. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const VERBS =
  'get list create update delete search send fetch archive merge close open sync export import run schedule cancel read write move copy rename upload download share invite assign approve'.split(
    ' ',
  );
const NOUNS =
  'issue pull_request repository branch commit message channel user table row query event calendar file directory invoice customer ticket deployment build alert metric document page comment label team project subscription payment refund report dashboard secret key bucket object cluster node pod service container image volume backup snapshot workflow job pipeline release tag note task sprint board'.split(
    ' ',
  );
const COMMON =
  'the a of for to with by from in returns given optional matching current all new existing specified details status owner name id items results page filter sort order limit account workspace organisation api request response data value field record list entry time date range'.split(
    ' ',
  );
const SYLLABLES = 'ka ro mi tel van sor pex lu dra ni quo ber tam shi zen fol gar hup ix yor'.split(
  ' ',
);

/** A vocabulary with a long tail, like real tool text: a few common words, many rare ones. */
function vocabulary(next: () => number, size: number): string[] {
  const words = new Set<string>([...COMMON, ...NOUNS.map((n) => n.replace('_', ' '))]);
  while (words.size < size) {
    const count = 2 + Math.floor(next() * 3);
    let word = '';
    for (let i = 0; i < count; i++) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)] ?? '';
    words.add(word);
  }
  return [...words];
}

/** Picks from `items` with a Zipf-like bias towards the front. */
function zipf<T>(items: readonly T[], next: () => number): T {
  const index = Math.floor(items.length * next() ** 3);
  return items[Math.min(index, items.length - 1)] as T;
}

export interface SyntheticCatalogue {
  readonly tools: Tool[];
  readonly queries: string[];
}

/** `count` tools over `count / 40` namespaces, and realistic 2–4 word queries against them. */
export function syntheticCatalogue(count: number, seed = 42): SyntheticCatalogue {
  const next = random(seed);
  const words = vocabulary(next, 4000);
  const namespaceCount = Math.max(4, Math.floor(count / 40));
  const tools: Tool[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < count; i++) {
    const verb = VERBS[Math.floor(next() * VERBS.length)] ?? 'get';
    const noun = NOUNS[Math.floor(next() * NOUNS.length)] ?? 'item';
    const description: string[] = [verb, 'a', noun.replace('_', ' ')];
    const length = 8 + Math.floor(next() * 16);
    for (let w = 0; w < length; w++) description.push(zipf(words, next));
    const namespace = `ns${Math.floor(next() * namespaceCount)}`;
    // Names read like real ones (`get_issue_comments`); a number only breaks a rare collision.
    let name = `${verb}_${noun}_${zipf(words, next).replace(' ', '_')}`;
    for (let n = 2; taken.has(`${namespace}:${name}`); n++)
      name = `${name.replace(/_\d+$/, '')}_${n}`;
    taken.add(`${namespace}:${name}`);
    tools.push({
      name,
      namespace,
      title: `${verb} ${noun.replace('_', ' ')}`,
      description: `${description.join(' ')}.`,
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
        required: ['id'],
      },
      ...(i % 5 === 0 ? { tags: [noun.split('_')[0] ?? noun] } : {}),
    });
  }
  const queries: string[] = [];
  for (let q = 0; q < 500; q++) {
    const terms = [
      VERBS[Math.floor(next() * VERBS.length)],
      NOUNS[Math.floor(next() * NOUNS.length)]?.replace('_', ' '),
    ];
    const extra = Math.floor(next() * 3);
    for (let e = 0; e < extra; e++) terms.push(zipf(words, next));
    queries.push(terms.join(' '));
  }
  return { tools, queries };
}
