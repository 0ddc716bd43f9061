import { describe, expect, it } from 'vitest';
import { ToolError } from '@toolplane/toolmodel';
import { createBm25Searcher } from './bm25-searcher.js';
import type { SearchDocument } from './searcher.js';

const doc = (
  id: string,
  description: string,
  extra: Partial<SearchDocument> = {},
): SearchDocument => ({
  id,
  name: id.split(':').pop() ?? id,
  namespace: id.includes(':') ? id.split(':')[0] : undefined,
  title: undefined,
  description,
  tags: [],
  ...extra,
});

describe('createBm25Searcher', () => {
  it('weights a match in the name above one in the description', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:notes', 'Keeps a calendar of notes.'));
    searcher.upsert(doc('a:calendar', 'Keeps notes.'));
    const hits = searcher.search({ text: 'calendar', limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(['a:calendar', 'a:notes']);
  });

  it('breaks score ties by id', () => {
    const searcher = createBm25Searcher();
    for (const id of ['x:c', 'x:a', 'x:b']) searcher.upsert(doc(id, 'same words here'));
    const hits = searcher.search({ text: 'words', limit: 2 });
    expect(hits.map((h) => h.id)).toEqual(['x:a', 'x:b']);
  });

  it('replaces a document on upsert and forgets it on remove', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:t', 'alpha'));
    searcher.upsert(doc('a:t', 'beta'));
    expect(searcher.search({ text: 'alpha', limit: 5 })).toEqual([]);
    expect(searcher.search({ text: 'beta', limit: 5 })).toHaveLength(1);
    searcher.remove('a:t');
    searcher.remove('a:t');
    expect(searcher.search({ text: 'beta', limit: 5 })).toEqual([]);
  });

  it('stays correct across compaction after many removals', () => {
    const searcher = createBm25Searcher();
    for (let i = 0; i < 3000; i++)
      searcher.upsert(doc(`n:t${i}`, i % 2 === 0 ? 'even widget' : 'odd widget'));
    for (let i = 0; i < 2500; i++) searcher.remove(`n:t${i}`);
    for (let i = 0; i < 10; i++) searcher.upsert(doc(`n:new${i}`, 'even gadget'));
    const even = searcher.search({ text: 'even', limit: 1000 });
    expect(even).toHaveLength(250 + 10);
    expect(new Set(even.map((h) => h.id)).size).toBe(even.length);
    expect(searcher.search({ text: 'widget', limit: 1000 })).toHaveLength(500);
  });

  it('honours namespace and tag filters', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:one', 'shared', { tags: ['x'] }));
    searcher.upsert(doc('b:two', 'shared', { tags: ['x', 'y'] }));
    const ids = (q: object) => searcher.search({ text: 'shared', limit: 5, ...q }).map((h) => h.id);
    expect(ids({ namespace: 'a' })).toEqual(['a:one']);
    expect(ids({ tags: ['y'] })).toEqual(['b:two']);
  });

  it('filters past removed and replaced tools', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:one', 'shared', { tags: ['x'] }));
    searcher.upsert(doc('a:two', 'shared'));
    searcher.upsert(doc('a:one', 'shared again', { tags: ['x'] }));
    searcher.remove('a:two');
    const ids = (q: object) => searcher.search({ text: 'shared', limit: 5, ...q }).map((h) => h.id);
    expect(ids({ namespace: 'a' })).toEqual(['a:one']);
    expect(ids({ tags: ['x'] })).toEqual(['a:one']);
  });

  it('throws invalid_argument for out-of-range parameters', () => {
    for (const options of [{ b: 2 }, { k1: -1 }, { weights: { name: Number.NaN } }]) {
      let code: string | undefined;
      try {
        createBm25Searcher(options);
      } catch (error) {
        code = ToolError.isInstance(error) ? error.code : undefined;
      }
      expect(code).toBe('invalid_argument');
    }
  });
});

describe('createBm25Searcher ranking', () => {
  it('matches a query word through its synonyms', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('fs:delete_directory', 'Deletes a directory and everything in it.'));
    searcher.upsert(doc('fs:read_file', 'Reads a file.'));
    expect(searcher.search({ text: 'remove a folder', limit: 5 }).map((h) => h.id)).toEqual([
      'fs:delete_directory',
    ]);
  });

  it('expands a short form into a phrase, and ranks the word itself above a synonym', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('gh:merge_pull_request', 'Merges a pull request.'));
    searcher.upsert(doc('gh:pr_status', 'Status of a PR.'));
    const hits = searcher.search({ text: 'pr', limit: 5 }).map((h) => h.id);
    expect(hits).toEqual(['gh:pr_status', 'gh:merge_pull_request']);
  });

  it('looks up two adjacent query words that are a synonym together as one', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('pay:create_refund', 'Refunds a charge.'));
    searcher.upsert(doc('dev:echo', 'Echoes back the input.'));
    searcher.upsert(doc('cal:set_out_of_office', 'Blocks time and declines meetings.'));
    searcher.upsert(doc('web:go_back', 'Goes back one page.'));
    searcher.upsert(doc('db:rollback', 'Rolls back a migration.'));
    const hits = searcher.search({ text: 'give the customer their money back', limit: 5 });
    expect(hits[0]?.id).toBe('pay:create_refund');
    // Not adjacent: no phrase.
    const apart = searcher.search({ text: 'back with my money', limit: 5 }).map((h) => h.id);
    expect(apart).not.toContain('pay:create_refund');
    expect(searcher.search({ text: 'on vacation', limit: 5 })[0]?.id).toBe('cal:set_out_of_office');
  });

  it('expands an everyday word to the catalogue word one way only', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('db:cancel_query', 'Cancels a running query.'));
    searcher.upsert(doc('proc:kill', 'Sends a signal to a process.'));
    expect(searcher.search({ text: 'kill the query', limit: 5 })[0]?.id).toBe('db:cancel_query');
    // `cancel` is not expanded to `kill`.
    expect(searcher.search({ text: 'cancel', limit: 5 }).map((h) => h.id)).toEqual([
      'db:cancel_query',
    ]);
  });

  it('takes its own aliases; with its own synonyms and no aliases, none', () => {
    const custom = createBm25Searcher({ aliases: [['cancel', 'nix']] });
    const synonymsOnly = createBm25Searcher({ synonyms: [['cancel', 'abort']] });
    for (const searcher of [custom, synonymsOnly]) {
      searcher.upsert(doc('db:cancel_query', 'Cancels a running query.'));
    }
    expect(custom.search({ text: 'nix', limit: 5 }).map((h) => h.id)).toEqual(['db:cancel_query']);
    expect(custom.search({ text: 'kill', limit: 5 })).toEqual([]);
    expect(synonymsOnly.search({ text: 'kill', limit: 5 })).toEqual([]);
    expect(synonymsOnly.search({ text: 'abort', limit: 5 })).toHaveLength(1);
  });

  it('corrects a misspelt word no tool contains when asked to', () => {
    const searcher = createBm25Searcher({ typoWeight: 0.7 });
    const plain = createBm25Searcher();
    for (const s of [searcher, plain]) {
      s.upsert(doc('gh:search_repositories', 'Searches repositories.'));
      s.upsert(doc('cal:create_event', 'Schedules a meeting.'));
    }
    expect(searcher.search({ text: 'serach repos', limit: 5 })[0]?.id).toBe(
      'gh:search_repositories',
    );
    expect(searcher.search({ text: 'shedule', limit: 5 })[0]?.id).toBe('cal:create_event');
    expect(plain.search({ text: 'shedule', limit: 5 })).toEqual([]);
  });

  it('drops filler words from a request, unless it is nothing but filler', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('gh:list_branches', 'Lists the branches of a repository.'));
    searcher.upsert(doc('x:list_branch_all', 'Lists all of a branch, and all of everything.'));
    expect(searcher.search({ text: 'please show all branches', limit: 5 })[0]?.id).toBe(
      'gh:list_branches',
    );
    expect(searcher.search({ text: 'all', limit: 5 }).map((h) => h.id)).toEqual([
      'x:list_branch_all',
    ]);
  });

  it('takes its own synonym groups, and none with []', () => {
    const custom = createBm25Searcher({ synonyms: [['invoice', 'bill']] });
    const none = createBm25Searcher({ synonyms: [] });
    for (const searcher of [custom, none]) {
      searcher.upsert(doc('pay:create_invoice', 'Creates an invoice.'));
      searcher.upsert(doc('fs:delete_directory', 'Deletes a directory.'));
    }
    expect(custom.search({ text: 'bill', limit: 5 }).map((h) => h.id)).toEqual([
      'pay:create_invoice',
    ]);
    expect(custom.search({ text: 'remove folder', limit: 5 })).toEqual([]);
    expect(none.search({ text: 'bill', limit: 5 })).toEqual([]);
  });

  it('builds its synonym table on the first search, from the groups as they were given', () => {
    const groups = [['invoice', 'bill']];
    const searcher = createBm25Searcher({ synonyms: groups });
    // Changed after the searcher was made, before its first search: not seen.
    groups[0] = ['invoice', 'receipt'];
    searcher.upsert(doc('pay:create_invoice', 'Creates an invoice.'));
    expect(searcher.search({ text: 'bill', limit: 5 }).map((h) => h.id)).toEqual([
      'pay:create_invoice',
    ]);
    expect(searcher.search({ text: 'receipt', limit: 5 })).toEqual([]);
  });

  it('prefers tools that match more of the query', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('a:send_invoice', 'Sends an invoice to a customer.'));
    searcher.upsert(doc('a:invoice_invoice', 'Invoice invoice invoice invoice.'));
    const hits = searcher.search({ text: 'send invoice', limit: 5 }).map((h) => h.id);
    expect(hits[0]).toBe('a:send_invoice');
  });

  it('prefers the tool whose whole name the query matches', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('b:cancel_subscription_export', 'cancel a subscription export'));
    searcher.upsert(doc('a:cancel_subscription', 'Cancel a customer subscription now.'));
    const ids = searcher.search({ text: 'cancel a subscription', limit: 5 }).map((h) => h.id);
    expect(ids).toEqual(['a:cancel_subscription', 'b:cancel_subscription_export']);
  });

  it('does not let many weak matches in one namespace outrank one exact match elsewhere', () => {
    const searcher = createBm25Searcher();
    searcher.upsert(doc('storage:archive', 'Archive a folder.'));
    // 50 filler tools sharing the query word once, in a long description, in one namespace.
    for (let i = 0; i < 50; i++) {
      searcher.upsert(
        doc(
          `misc:helper_${i}`,
          `Helper number ${i} of the misc server: formats, converts and checks records, and can archive.`,
        ),
      );
    }
    for (let i = 0; i < 100; i++) searcher.upsert(doc(`other:tool_${i}`, `Unrelated tool ${i}.`));
    const hits = searcher.search({ text: 'archive', limit: 5 });
    expect(hits[0]?.id).toBe('storage:archive');
    // The prior still counts: a namespace's best other matches lift a tool a little.
    const alone = createBm25Searcher({ namespacePrior: 0 });
    alone.upsert(doc('misc:helper_0', 'Helper number 0 of the misc server: can archive.'));
    alone.upsert(doc('misc:helper_1', 'Helper number 1 of the misc server: can archive.'));
    const lifted = createBm25Searcher();
    lifted.upsert(doc('misc:helper_0', 'Helper number 0 of the misc server: can archive.'));
    lifted.upsert(doc('misc:helper_1', 'Helper number 1 of the misc server: can archive.'));
    const score = (s: typeof alone): number => s.search({ text: 'archive', limit: 1 })[0]!.score;
    expect(score(lifted)).toBeGreaterThan(score(alone));
  });

  it('bounds the namespace prior by namespacePrior times the best other match', () => {
    const score = (searcher: ReturnType<typeof createBm25Searcher>, id: string): number =>
      searcher.search({ text: 'archive', limit: 100 }).find((h) => h.id === id)?.score ?? 0;
    const fill = (searcher: ReturnType<typeof createBm25Searcher>): typeof searcher => {
      searcher.upsert(doc('solo:archive', 'Archive a folder.'));
      for (let i = 0; i < 50; i++) searcher.upsert(doc(`misc:helper_${i}`, 'Can archive.'));
      return searcher;
    };
    const alone = fill(createBm25Searcher({ namespacePrior: 0 }));
    for (const namespacePriorMatches of [1, 8, 100]) {
      const searcher = fill(createBm25Searcher({ namespacePrior: 0.5, namespacePriorMatches }));
      const helper = score(searcher, 'misc:helper_0');
      expect(helper).toBeGreaterThan(score(alone, 'misc:helper_0'));
      expect(helper).toBeLessThanOrEqual(1.5 * score(alone, 'misc:helper_0') * (1 + 1e-9));
      // A tool alone in its namespace earns no prior.
      expect(score(searcher, 'solo:archive')).toBe(score(alone, 'solo:archive'));
    }
  });

  it('adds a common word to the tools the rare words found, in a short or a long list', () => {
    for (const commonOnly of [300, 3000]) {
      const searcher = createBm25Searcher({ synonyms: [] });
      // 100 tools with the rare word; half of them also carry the common one.
      for (let i = 0; i < 100; i++) {
        searcher.upsert(doc(`r:t${i}`, i % 2 === 0 ? 'zorblat widget' : 'zorblat gadget'));
      }
      for (let i = 0; i < commonOnly; i++) searcher.upsert(doc(`c:t${i}`, `widget ${i}`));
      const hits = searcher.search({ text: 'zorblat widget', limit: 100 });
      const both = hits.slice(0, 50).map((h) => Number(h.id.slice(3)));
      expect(hits.slice(0, 50).every((h) => h.id.startsWith('r:'))).toBe(true);
      expect(both.every((n) => n % 2 === 0)).toBe(true);
      expect(hits.slice(50).every((h) => h.id.startsWith('r:'))).toBe(true);
    }
  });

  it('searches what was just upserted, without a separate build step', () => {
    const searcher = createBm25Searcher();
    for (let i = 0; i < 2000; i++) searcher.upsert(doc(`n:t${i}`, `widget number ${i}`));
    expect(searcher.search({ text: 'widget', limit: 3 })).toHaveLength(3);
    searcher.upsert(doc('n:gadget', 'a gadget'));
    expect(searcher.search({ text: 'gadget', limit: 3 }).map((h) => h.id)).toEqual(['n:gadget']);
    searcher.remove('n:gadget');
    expect(searcher.search({ text: 'gadget', limit: 3 })).toEqual([]);
  });

  it('treats prototype names as plain words', () => {
    const searcher = createBm25Searcher({ synonyms: [['__proto__', 'constructor', 'toString']] });
    searcher.upsert(doc('a:constructor', 'Builds a constructor.'));
    expect(() =>
      searcher.search({ text: '__proto__ hasOwnProperty valueOf', limit: 5 }),
    ).not.toThrow();
    expect(searcher.search({ text: '__proto__', limit: 5 }).map((h) => h.id)).toEqual([
      'a:constructor',
    ]);
  });

  it('throws invalid_argument for bad synonyms and out-of-range ranking options', () => {
    for (const options of [
      { synonyms: 'create make' as unknown as string[][] },
      { synonyms: [[1, 2]] as unknown as string[][] },
      { aliases: [['cancel', 3]] as unknown as string[][] },
      { synonymWeight: 2 },
      { typoWeight: 1.5 },
      { aliasWeight: -1 },
      { coverage: -0.1 },
      { namespacePrior: Number.NaN },
      { nameMatch: 11 },
      { namespacePriorMatches: 0 },
      { namespacePriorMatches: Number.POSITIVE_INFINITY },
    ]) {
      let code: string | undefined;
      try {
        createBm25Searcher(options);
      } catch (error) {
        code = ToolError.isInstance(error) ? error.code : undefined;
      }
      expect(code).toBe('invalid_argument');
    }
  });
});
