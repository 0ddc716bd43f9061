import { describe, expect, it } from 'vitest';
import { createBm25Searcher } from './bm25-searcher.js';
import {
  diversifyByIntent,
  intentMask,
  intentsOf,
  keepIntentTop,
  mergeIntentHits,
} from './intents.js';
import type { SearchDocument } from './searcher.js';

function doc(id: string, description: string): SearchDocument {
  const [namespace, name] = id.split(':') as [string, string];
  return { id, name, namespace, title: undefined, description, tags: [] };
}

describe('intentsOf', () => {
  it('splits a request at commas and joining words into clauses of terms', () => {
    expect(intentsOf('merge the pull request, then ping the team in chat')).toEqual([
      ['merg', 'pull', 'request'],
      ['ping', 'team', 'chat'],
    ]);
    expect(intentsOf('create an issue and post a message')).toHaveLength(2);
  });

  it('splits at the end of a sentence and at but, before and after, not inside a name', () => {
    expect(intentsOf('who reported the flaky ticket? assign it to me')).toEqual([
      ['report', 'flaki', 'ticket'],
      ['assign'],
    ]);
    expect(intentsOf('Find the invoice. Refund it!')).toHaveLength(2);
    expect(intentsOf('draft a reply but label the thread first')).toHaveLength(2);
    expect(intentsOf('search for a ticket before creating one')).toHaveLength(2);
    expect(intentsOf('pin the announcement after posting it')).toHaveLength(2);
    expect(intentsOf('fetch example.com/v1.2/docs')).toEqual([]);
  });

  it('finds one intent when no clause but one has a meaningful word', () => {
    expect(intentsOf('read a file').length).toBeLessThan(2);
    expect(intentsOf('and then, please')).toEqual([]);
    expect(intentsOf('read the file and then')).toHaveLength(1);
  });

  it('folds clauses past the fourth into the last one', () => {
    const intents = intentsOf('alpha, bravo, charlie, delta, echo');
    expect(intents).toHaveLength(4);
    expect(intents[3]).toEqual(['delta', 'echo']);
  });
});

describe('mergeIntentHits', () => {
  it('lets the best tool of each intent compete on its own list scale', () => {
    const whole = [
      { id: 'a:1', score: 10 },
      { id: 'a:2', score: 9.5 },
      { id: 'a:3', score: 9 },
    ];
    const second = [{ id: 'b:1', score: 2 }];
    const merged = mergeIntentHits(whole, [second], 3, 0.92);
    expect(merged.map((hit) => hit.id)).toEqual(['a:1', 'a:2', 'b:1']);
    expect(merged[2]?.score).toBeCloseTo(9.2);
  });
});

describe('diversifyByIntent', () => {
  const hits = [
    { id: 'a:1', score: 10 },
    { id: 'a:2', score: 9 },
    { id: 'a:3', score: 8 },
    { id: 'b:1', score: 5 },
  ];
  const masks: Record<string, number> = { 'a:1': 1, 'a:2': 1, 'a:3': 1, 'b:1': 2 };

  it('moves the best tool of an unserved intent up', () => {
    const out = diversifyByIntent(hits, (id) => masks[id] ?? 0, 3, 0.6);
    expect(out.map((hit) => hit.id)).toEqual(['a:1', 'b:1', 'a:2']);
  });

  it('keeps the order when diversity is off or every hit serves the same intents', () => {
    expect(diversifyByIntent(hits, () => 0, 3, 0.6).map((hit) => hit.id)).toEqual([
      'a:1',
      'a:2',
      'a:3',
    ]);
    expect(diversifyByIntent(hits, (id) => masks[id] ?? 0, 3, 0)).toEqual(hits.slice(0, 3));
  });

  it('prefers a hit matching query words no earlier hit matched', () => {
    // Words: 0 and 1 of the first need, 2 of the second (the rarest, so the heaviest).
    const words: Record<string, number> = {
      'a:1': 0b011,
      'a:2': 0b011,
      'a:3': 0b001,
      'b:1': 0b100,
    };
    const coverage = {
      wordsOf: (id: string) => words[id] ?? 0,
      weights: new Float64Array([0.2, 0.2, 0.6]),
      weight: 1,
    };
    const out = diversifyByIntent(hits, () => 0, 2, 0, coverage);
    expect(out.map((hit) => hit.id)).toEqual(['a:1', 'b:1']);
    // Without coverage the same hits keep their order.
    expect(diversifyByIntent(hits, () => 0, 2, 0).map((hit) => hit.id)).toEqual(['a:1', 'a:2']);
  });
});

describe('keepIntentTop with one slot', () => {
  const ranked = [
    { id: 'gh:merge', score: 10 },
    { id: 'gh:update', score: 9 },
    { id: 'gh:get', score: 8 },
    { id: 'gh:list', score: 7 },
  ];
  const scores: Record<string, number> = { 'gh:merge': 10, 'gl:create_mr': 6, 'gh:update': 9 };
  const scoreOf = (id: string): number => scores[id] ?? 0;

  it("places each intent's best tool right after the first result", () => {
    const best = [
      { id: 'gl:create_mr', score: 17 },
      { id: 'gh:update', score: 23 },
    ];
    const ids = keepIntentTop(
      ranked,
      best.map((hit) => [hit]),
      scoreOf,
      3,
      1,
    ).map((hit) => hit.id);
    expect(ids).toEqual(['gh:merge', 'gh:update', 'gl:create_mr']);
  });

  it('keeps a shorter page a prefix of a longer one', () => {
    const perIntent = [[{ id: 'gl:create_mr', score: 17 }], []];
    const long = keepIntentTop(ranked, perIntent, scoreOf, 4, 1).map((hit) => hit.id);
    const short = keepIntentTop(ranked, perIntent, scoreOf, 2, 1).map((hit) => hit.id);
    expect(long.slice(0, 2)).toEqual(short);
    expect(long).toEqual(['gh:merge', 'gl:create_mr', 'gh:update', 'gh:get']);
  });
});

describe('keepIntentTop', () => {
  const ranked = [
    { id: 'gh:search_issues', score: 10 },
    { id: 'gh:search_code', score: 9 },
    { id: 'gh:search_users', score: 8 },
    { id: 'web:search', score: 7 },
  ];
  const perIntent = [
    [
      { id: 'web:search', score: 12 },
      { id: 'web:fetch', score: 6 },
    ],
    [
      { id: 'gh:search_issues', score: 9 },
      { id: 'gh:create_issue', score: 8 },
      { id: 'gh:update_issue', score: 7 },
    ],
  ];
  const scores: Record<string, number> = { 'web:search': 7, 'web:fetch': 3, 'gh:create_issue': 5 };
  const scoreOf = (id: string): number => scores[id] ?? 0;

  it('gives each clause its first tools, round by round, before the rest of the ranking', () => {
    const ids = keepIntentTop(ranked, perIntent, scoreOf, 5, 2).map((hit) => hit.id);
    // Round one: web:search (gh:search_issues is already first); round two: both seconds.
    expect(ids).toEqual([
      'gh:search_issues',
      'web:search',
      'gh:create_issue',
      'web:fetch',
      'gh:search_code',
    ]);
  });

  it('keeps a shorter page a prefix of a longer one', () => {
    const long = keepIntentTop(ranked, perIntent, scoreOf, 5, 2).map((hit) => hit.id);
    const short = keepIntentTop(ranked, perIntent, scoreOf, 3, 2).map((hit) => hit.id);
    expect(long.slice(0, 3)).toEqual(short);
  });

  it("with one slot, places only each clause's best", () => {
    const ids = keepIntentTop(ranked, perIntent, scoreOf, 4, 1).map((hit) => hit.id);
    expect(ids).toEqual(['gh:search_issues', 'web:search', 'gh:search_code', 'gh:search_users']);
  });
});

describe('intentMask', () => {
  it('marks the intents whose terms a document holds', () => {
    const terms = [new Set(['issu']), new Set(['messag', 'chat'])];
    expect(intentMask(doc('slack:post', 'Post a message to a channel'), terms)).toBe(2);
    expect(intentMask(doc('gh:create_issue', 'Create an issue; chat about it'), terms)).toBe(3);
    expect(intentMask(undefined, terms)).toBe(0);
  });
});

describe('multi-intent search', () => {
  // Six tools about archiving reports (rare words) and many about sending or email (common
  // words): the whole request ranks every report tool above the one tool that sends email.
  function searcher(intents: number): ReturnType<typeof createBm25Searcher> {
    const search = createBm25Searcher({ intents });
    for (let i = 0; i < 6; i++) {
      search.upsert(doc(`reports:archive_report_${i}`, `Archive the quarterly report ${i}.`));
    }
    for (let i = 0; i < 20; i++) {
      search.upsert(doc(`mail${i}:read_email`, 'Read an email.'));
      search.upsert(doc(`fax${i}:send_fax`, 'Send a fax.'));
    }
    search.upsert(doc('mail:send_email', 'Send an email.'));
    return search;
  }

  it('finds the tools of both needs in the top results', () => {
    const ids = searcher(0.3)
      .search({ text: 'archive the report and send an email', limit: 3 })
      .map((hit) => hit.id);
    expect(ids).toContain('mail:send_email');
    expect(ids.some((id) => id.startsWith('reports:'))).toBe(true);
  });

  it('ranks by the whole request alone when intents are off', () => {
    const ids = searcher(0)
      .search({ text: 'archive the report and send an email', limit: 3 })
      .map((hit) => hit.id);
    expect(ids).not.toContain('mail:send_email');
  });

  it('rejects an intent weight or word coverage out of range', () => {
    expect(() => createBm25Searcher({ intents: 2 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createBm25Searcher({ intentCoverage: 3 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
