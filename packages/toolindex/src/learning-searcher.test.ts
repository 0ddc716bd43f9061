import { describe, expect, it, vi } from 'vitest';
import type { LearningSearcher } from './learning-options.js';
import { createLearningSearcher, requestKey } from './learning-searcher.js';
import { boundedQuery, MAX_QUERY_LENGTH, type SearchDocument } from './searcher.js';
import { indexOf, realTools } from './testdata/evaluation.js';
import { tokenize } from './tokenize.js';
import {
  createForgetListeners,
  createMemoryEvidenceStore,
  keepHeaviest,
  type EvidenceForget,
  type EvidenceStore,
} from './usage-evidence.js';

function doc(id: string, description: string, tags: string[] = []): SearchDocument {
  const [namespace, name] = id.split(':') as [string, string];
  return { id, name, namespace, title: undefined, description, tags };
}

function withTools(searcher: LearningSearcher): LearningSearcher {
  searcher.upsert(doc('billing:create_refund', 'Refund a charge to the card it was paid with.'));
  searcher.upsert(doc('billing:list_charges', 'List charges of a customer.'));
  searcher.upsert(doc('chat:post_message', 'Post a message in a channel.'));
  return searcher;
}

const ids = async (searcher: LearningSearcher, text: string): Promise<string[]> =>
  (await searcher.search({ text, limit: 3 })).map((hit) => hit.id);

describe('createLearningSearcher', () => {
  it('ranks a tool by words that led to calls of it, though its text lacks them', async () => {
    const searcher = withTools(createLearningSearcher());
    expect(await ids(searcher, 'undo the purchase for this customer')).not.toContain(
      'billing:create_refund',
    );
    searcher.observeSearch('s1', 'undo the purchase for this customer', ['billing:list_charges']);
    // A call of a tool the search did not show is no evidence.
    expect(searcher.observeCall('s1', 'billing:create_refund')).toBe(false);
    searcher.observeSearch('s1', 'undo the purchase', [
      'billing:list_charges',
      'billing:create_refund',
    ]);
    expect(searcher.observeCall('s1', 'billing:create_refund')).toBe(true);
    expect((await ids(searcher, 'undo a purchase'))[0]).toBe('billing:create_refund');
  });

  it('counts a call only in the session that searched, and within the follow-up time', () => {
    let clock = 0;
    const searcher = withTools(createLearningSearcher({ followUpMs: 1000, now: () => clock }));
    searcher.observeSearch('a', 'send a note', ['chat:post_message']);
    expect(searcher.observeCall('b', 'chat:post_message')).toBe(false);
    clock = 2000;
    expect(searcher.observeCall('a', 'chat:post_message')).toBe(false);
  });

  it('counts every page of one search as what the session was shown, and a new search anew', () => {
    const searcher = withTools(createLearningSearcher());
    searcher.observeSearch('a', 'money back', ['billing:list_charges']);
    searcher.observeSearch('a', 'money back', ['billing:create_refund']);
    expect(searcher.observeCall('a', 'billing:list_charges')).toBe(true);
    expect(searcher.observeCall('a', 'billing:create_refund')).toBe(true);
    // Each call of a shown tool counts once.
    expect(searcher.observeCall('a', 'billing:create_refund')).toBe(false);
    searcher.observeSearch('a', 'post a note', ['chat:post_message']);
    expect(searcher.observeCall('a', 'billing:list_charges')).toBe(false);
  });

  it('credits a call to the searches just before the one that showed the tool', async () => {
    const searcher = withTools(createLearningSearcher());
    // The user's own words find nothing useful; a second search by the tool's words does.
    searcher.observeSearch('s', 'reimburse the client', ['chat:post_message']);
    searcher.observeSearch('s', 'refund a charge', ['billing:create_refund']);
    expect(searcher.observeCall('s', 'billing:create_refund')).toBe(true);
    expect((await ids(searcher, 'reimburse the client'))[0]).toBe('billing:create_refund');
    // At most three searches of a session are remembered.
    const chain = withTools(createLearningSearcher());
    chain.observeSearch('s', 'shown long ago', ['billing:list_charges']);
    for (const text of ['one', 'two', 'three']) chain.observeSearch('s', text, []);
    expect(chain.observeCall('s', 'billing:list_charges')).toBe(false);
  });

  it('weighs evidence by how specific its words are to few tools', async () => {
    const searcher = withTools(createLearningSearcher());
    searcher.upsert(doc('chat:list_channels', 'List the channels of a workspace.'));
    // `list` is in many tools' text, `everything` in none: the same single call of a tool counts
    // far more through the rare word.
    searcher.record('list everything', 'chat:post_message');
    const common = await searcher.search({ text: 'list channels', limit: 3 });
    expect(common[0]?.id).toBe('chat:list_channels');
    const rare = await searcher.search({ text: 'everything channels', limit: 3 });
    expect(rare[0]?.id).toBe('chat:post_message');
  });

  it("keeps a tool's own words only for the whole request, when search did not rank it first", async () => {
    const store = createMemoryEvidenceStore();
    const searcher = withTools(createLearningSearcher({ store }));
    // `refund` and `charge` already ranked the tool first; `reimburse` and `client` are new.
    searcher.observeSearch('s', 'reimburse the client charge refund', ['billing:create_refund']);
    searcher.observeCall('s', 'billing:create_refund');
    await searcher.flush();
    expect((await store.load()).map((row) => row.term).sort()).toEqual(['client', 'reimburs']);
    // Ranked second: its own words `charge` and `customer` are remembered together, under the
    // whole request, never as words on their own (every billing tool holds them).
    const request = 'charges of a customer';
    expect((await ids(searcher, request))[0]).toBe('billing:list_charges');
    for (const session of ['t', 'u']) {
      searcher.observeSearch(session, request, ['billing:list_charges', 'billing:create_refund']);
      searcher.observeCall(session, 'billing:create_refund');
    }
    await searcher.flush();
    const terms = (await store.load()).map((row) => row.term);
    expect(terms).not.toContain('charg');
    expect(terms).toContain(requestKey(['charg', 'custom']));
    // Asked twice and answered by the same call, the request, in any order, now ranks it first.
    expect((await ids(searcher, 'a customer, charges'))[0]).toBe('billing:create_refund');
  });

  it('adds no evidence for a word the best hit already holds', async () => {
    const searcher = withTools(createLearningSearcher());
    // People called the refund tool after asking about a "payout"; the list tool holds
    // "payout" itself, so for a request it answers by that word, evidence changes nothing.
    searcher.upsert(doc('billing:list_payouts', 'List the payouts sent to the bank.'));
    searcher.record('payout went wrong, money back', 'billing:create_refund');
    expect((await ids(searcher, 'list the payouts'))[0]).toBe('billing:list_payouts');
    // A request in words no tool holds still finds the called tool.
    expect(await ids(searcher, 'money back please')).toContain('billing:create_refund');
  });

  it('lifts a called tool above incidental matches of a request in other words', async () => {
    const searcher = withTools(createLearningSearcher());
    for (let i = 0; i < 40; i++)
      searcher.upsert(doc(`shop:tool_${String(i)}`, `Order ${String(i)}.`));
    // Only `order` matches, and only the shop tools: weak matches, one of them best.
    searcher.record('chargeback on that order', 'billing:create_refund');
    expect((await ids(searcher, 'chargeback for my order'))[0]).toBe('billing:create_refund');
  });

  it('learns a request in other words from the searches before a call (README)', async () => {
    const store = createMemoryEvidenceStore();
    const learner = createLearningSearcher({ store });
    const index = indexOf(realTools(), { searcher: learner });
    const shown = async (text: string): Promise<string[]> =>
      (await index.search(text, { limit: 5 })).results.map((hit) => hit.id);
    const later = 'kudos to Ana for the launch';
    expect(await shown(later)).not.toContain('slack:slack_post_message');
    // Two people: each asks in their own words, then searches by the tool's words and calls it.
    for (const [i, words] of [
      'kudos to the team in #wins',
      'kudos to the release crew',
    ].entries()) {
      const session = `person-${String(i)}`;
      learner.observeSearch(session, words, await shown(words));
      learner.observeSearch(session, 'slack post message', await shown('slack post message'));
      expect(learner.observeCall(session, 'slack:slack_post_message')).toBe(true);
      if (i === 0) expect(await shown(later)).toContain('slack:slack_post_message');
    }
    await learner.flush();
    const terms = (await store.load()).map((row) => row.term);
    expect(terms).toContain('kudo');
    expect(terms).not.toContain('slack');
    expect((await shown(later))[0]).toBe('slack:slack_post_message');
  });

  it('lets evidence decay and bounds the terms kept per tool', async () => {
    let clock = 0;
    const store = createMemoryEvidenceStore();
    const searcher = createLearningSearcher({
      store,
      maxTermsPerTool: 2,
      halfLifeMs: 1000,
      now: () => clock,
    });
    searcher.record('alpha bravo', 'chat:post_message');
    clock = 3000; // three half-lives: alpha and bravo now weigh 1/8
    searcher.record('charlie', 'chat:post_message');
    await searcher.flush();
    const rows = await store.load();
    expect(rows.map((row) => row.term).sort()).toHaveLength(2);
    expect(rows.some((row) => row.term === 'charli')).toBe(true);
  });

  it('learns a huge query as it is searched: from its first MAX_QUERY_LENGTH characters', async () => {
    const store = createMemoryEvidenceStore();
    const searcher = withTools(createLearningSearcher({ store }));
    const words = Array.from({ length: 40_000 }, (_, i) => `word${i.toString(36)}`);
    const huge = `echo ${words.join(' ')}`;
    searcher.observeSearch('s', huge, ['billing:list_charges', 'chat:post_message']);
    expect(searcher.observeCall('s', 'chat:post_message')).toBe(true);
    await searcher.flush();
    const searched = new Set(tokenize(boundedQuery(huge)));
    const rows = await store.load();
    expect(rows.length).toBeGreaterThan(0);
    // At most the default 32 terms per tool, each one a word of the query as searched.
    expect(rows.length).toBeLessThanOrEqual(32);
    for (const { term } of rows.filter((row) => !row.term.startsWith('='))) {
      expect(searched.has(term)).toBe(true);
    }
  });

  it('keeps a search as it is searched: a query differing past the bound is the same search', () => {
    const searcher = withTools(createLearningSearcher());
    const head = 'refund '.repeat(Math.ceil(MAX_QUERY_LENGTH / 7));
    searcher.observeSearch('a', `${head} first`, ['billing:list_charges']);
    // The index searched the same text, so this is that search's next page.
    searcher.observeSearch('a', `${head} second`, ['billing:create_refund']);
    searcher.observeSearch('a', 'post a note', ['chat:post_message']);
    searcher.observeSearch('a', 'post a memo', ['chat:post_message']);
    expect(searcher.observeCall('a', 'billing:list_charges')).toBe(true);
    expect(searcher.observeCall('a', 'billing:create_refund')).toBe(true);
  });

  it('leaves the bound to a store that applies it, and removes what it evicted from one that does not', async () => {
    const shared = createMemoryEvidenceStore();
    // A store of another instance taught `walrus` three times; this searcher has not loaded it.
    await shared.add?.(
      [1, 2, 3].map(() => ({
        toolId: 'chat:post_message',
        term: 'walru',
        weight: 1,
        updatedAt: 0,
      })),
      { halfLifeMs: 1e9 },
    );
    const unbounded: EvidenceStore = {
      ...shared,
      add: async (rows, { halfLifeMs }) => {
        await shared.add?.(rows, { halfLifeMs });
      },
    };
    const terms = async (store: EvidenceStore) => {
      const learner = createLearningSearcher({
        store,
        learn: true,
        maxTermsPerTool: 2,
        now: () => 0,
      });
      for (const word of ['walrus', 'narwhal narwhal', 'narwhal', 'quokka']) {
        learner.record(word, 'chat:post_message');
      }
      await learner.flush();
      return (await shared.load()).map((row) => row.term).sort();
    };
    // Its own view held `walru` once and dropped it; the store keeps the 4 it holds in all.
    expect(await terms(shared)).toEqual(['=narwhal', 'walru']);
    await shared.forget();
    expect(await terms(unbounded)).toEqual(['=narwhal', 'narwhal']);
  });

  it('keeps a forget made while a bounded write was on its way', async () => {
    const shared = createMemoryEvidenceStore();
    let entered = (): void => undefined;
    const adding = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // It tells no forgets: the searcher's own forget is the only one it makes.
    const slow: EvidenceStore = {
      ...shared,
      onForget: undefined,
      // Answers with the rows it held before the forget, once the forget was made.
      add: async (rows, options) => {
        const held = await shared.add?.(rows, options);
        entered();
        await gate;
        return held;
      },
    };
    const learner = withTools(createLearningSearcher({ store: slow }));
    learner.record('undo purchase', 'billing:create_refund');
    await adding;
    const forgotten = learner.forget('billing:create_refund');
    release();
    await forgotten;
    expect(await ids(learner, 'undo purchase')).toEqual([]);
    expect(await shared.load()).toEqual([]);
  });

  it('keeps evidence in the store, shared with a second searcher, until forgotten', async () => {
    const store = createMemoryEvidenceStore();
    const first = withTools(createLearningSearcher({ store }));
    first.record('undo purchase', 'billing:create_refund');
    await first.flush();
    const second = withTools(createLearningSearcher({ store }));
    await second.ready;
    expect((await ids(second, 'undo purchase'))[0]).toBe('billing:create_refund');
    await second.forget('billing:create_refund');
    expect(await store.load()).toEqual([]);
    expect(await ids(second, 'undo purchase')).toEqual([]);
  });

  it('drops evidence another searcher forgot, and never writes the forgotten weight back', async () => {
    const store = createMemoryEvidenceStore();
    const first = withTools(createLearningSearcher({ store }));
    const second = withTools(createLearningSearcher({ store }));
    await second.ready;
    for (let i = 0; i < 3; i++) second.record('undo purchase', 'billing:create_refund');
    await second.flush();
    expect((await ids(second, 'undo purchase'))[0]).toBe('billing:create_refund');
    await first.forget('billing:create_refund');
    expect(await ids(second, 'undo purchase')).toEqual([]);
    // Its next learned use is one observation, not the three forgotten plus one.
    second.record('undo purchase', 'billing:create_refund');
    await second.flush();
    expect((await store.load()).map((row) => row.weight)).toEqual([1, 1, 1]);
  });

  it('adds only new observations to a store that adds, so a forget it has not heard holds', async () => {
    const store = createMemoryEvidenceStore();
    // A store of another fleet instance: it shares the rows but not the forget listeners.
    const deaf: EvidenceStore = { ...store, onForget: undefined };
    // One clock reading for every record, so each observation weighs exactly 1 when summed.
    const learner = withTools(createLearningSearcher({ store: deaf, now: () => 1000 }));
    learner.record('undo purchase', 'billing:create_refund');
    learner.record('undo purchase', 'billing:create_refund');
    await learner.flush();
    expect((await store.load()).map((row) => row.weight)).toEqual([2, 2, 2]);
    await store.forget();
    learner.record('undo purchase', 'billing:create_refund');
    await learner.flush();
    expect((await store.load()).map((row) => row.weight)).toEqual([1, 1, 1]);
  });

  it('keeps out of memory what was forgotten while the store was loading', async () => {
    const store = createMemoryEvidenceStore();
    await store.save([{ toolId: 'billing:create_refund', term: 'undo', weight: 5, updatedAt: 1 }]);
    let release = (): void => undefined;
    const held: EvidenceStore = {
      ...store,
      load: async () => {
        const rows = await store.load();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return rows;
      },
    };
    const learner = withTools(createLearningSearcher({ store: held }));
    await store.forget('billing:create_refund');
    release();
    await learner.ready;
    expect(await ids(learner, 'undo')).toEqual([]);
  });

  it('honours namespace filters for tools found by evidence alone', async () => {
    const searcher = withTools(createLearningSearcher());
    searcher.record('undo purchase', 'billing:create_refund');
    expect(await searcher.search({ text: 'undo purchase', limit: 3, namespace: 'chat' })).toEqual(
      [],
    );
  });

  it('records nothing when learning is off', async () => {
    const store = createMemoryEvidenceStore();
    const searcher = withTools(createLearningSearcher({ store, learn: false }));
    searcher.record('undo purchase', 'billing:create_refund');
    searcher.observeSearch('s', 'undo purchase', ['billing:create_refund']);
    expect(searcher.observeCall('s', 'billing:create_refund')).toBe(false);
    await searcher.flush();
    expect(await store.load()).toEqual([]);
  });

  it('reports a failing store and goes on learning in memory', async () => {
    const errors: string[] = [];
    const broken: EvidenceStore = {
      load: () => Promise.reject(new Error('disk gone')),
      save: () => Promise.reject(new Error('disk gone')),
      remove: () => Promise.resolve(),
      forget: () => Promise.resolve(),
    };
    const searcher = withTools(
      createLearningSearcher({ store: broken, onError: (error) => errors.push(error.code) }),
    );
    await searcher.ready;
    searcher.record('undo purchase', 'billing:create_refund');
    await searcher.flush();
    expect(errors).toEqual(['store_error', 'store_error']);
    expect((await ids(searcher, 'undo purchase'))[0]).toBe('billing:create_refund');
  });

  it('rejects options out of range, and options it does not know', () => {
    expect(() => createLearningSearcher({ weight: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createLearningSearcher({ halfLife: 1000 } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: 'createLearningSearcher: unknown option "halfLife"; did you mean "halfLifeMs"?',
      }),
    );
  });
});

// createMemoryEvidenceStore passes toolkit's describeEvidenceStoreContract (toolkit's tests).
describe('keepHeaviest', () => {
  it('ranks rows too old for their decayed weights to tell apart', () => {
    const rows = [
      { toolId: 'a:x', term: 'light', weight: 1, updatedAt: 2 },
      { toolId: 'a:x', term: 'heavy', weight: 8, updatedAt: 0 },
    ];
    // At 5,000 half-lives both weigh 0 as numbers; heavy is still four times light.
    expect(keepHeaviest(rows, 1, 1).kept.map((row) => row.term)).toEqual(['heavy']);
  });
});

describe('createForgetListeners', () => {
  it('tells each subscription on its own, and every listener though one throws', () => {
    const listeners = createForgetListeners();
    const heard: (string | undefined)[] = [];
    const listener = (forget: EvidenceForget) => heard.push(forget.toolId);
    const off = listeners.add(listener);
    listeners.add(listener);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    listeners.add(() => {
      throw new Error('a listener that throws');
    });
    off();
    off();
    listeners.add(listener);
    listeners.tell({ toolId: 'a:x' });
    expect(heard).toEqual(['a:x', 'a:x']);
    expect(error).toHaveBeenCalledTimes(1);
    error.mockRestore();
  });
});
