import { closeSync, openSync, writeSync } from 'node:fs';
import { createLearningSearcher, type LearningSearcher } from '@toolplane/toolindex';
import { describeEvidenceStoreContract } from '@toolplane/toolkit/testing/vitest';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { useChildren } from './child.fixture.js';
import { createSqliteEvidenceStore, type SqliteEvidenceStore } from './sqlite-evidence.js';
import { createSqliteVectorCache } from './sqlite-vectors.js';
import { useTempDb } from './temp-db.fixture.js';

const temp = useTempDb('store-sqlite-evidence-');
const children = useChildren();
const freshPath = (): string => temp.fresh();
const storeAt = (path: string): SqliteEvidenceStore =>
  temp.track(createSqliteEvidenceStore({ path }));
const doc = {
  id: 'billing:create_refund',
  name: 'create_refund',
  namespace: 'billing',
  title: undefined,
  description: 'Refund a charge.',
  tags: [],
};

let contractPath = '';
describeEvidenceStoreContract('createSqliteEvidenceStore on a file', {
  create: () =>
    createSqliteEvidenceStore({ path: (contractPath = temp.fresh()), pollIntervalMs: 10 }),
  reopen: () => createSqliteEvidenceStore({ path: contractPath, pollIntervalMs: 10 }),
});

describe('createSqliteEvidenceStore', () => {
  it('keeps a newer row against an older write from a connection with a stale view', async () => {
    const path = freshPath();
    const first = storeAt(path);
    await first.save([{ toolId: 'billing:refund', term: 'undo', weight: 2, updatedAt: 20 }]);
    await storeAt(path).save([
      { toolId: 'billing:refund', term: 'undo', weight: 9, updatedAt: 10 },
    ]);
    expect(await first.load()).toEqual([
      { toolId: 'billing:refund', term: 'undo', weight: 2, updatedAt: 20 },
    ]);
  });

  it('lets a restarted learning searcher rank by evidence recorded before', async () => {
    const path = freshPath();
    const before = createLearningSearcher({ store: storeAt(path) });
    before.upsert(doc);
    before.observeSearch('s1', 'undo the purchase', ['billing:create_refund']);
    expect(before.observeCall('s1', 'billing:create_refund')).toBe(true);
    await before.flush();

    const after = createLearningSearcher({ store: storeAt(path) });
    after.upsert(doc);
    await after.ready;
    const hits = await after.search({ text: 'undo a purchase', limit: 5 });
    expect(hits.map((hit) => hit.id)).toEqual(['billing:create_refund']);
    await after.forget();
    expect(await storeAt(path).load()).toEqual([]);
  });

  it('stops a second process ranking by forgotten evidence, and never writes it back', async () => {
    const path = freshPath();
    const first = createLearningSearcher({ store: storeAt(path) });
    const secondStore = storeAt(path);
    const second = createLearningSearcher({ store: secondStore });
    first.upsert(doc);
    second.upsert(doc);
    await second.ready;
    for (let i = 0; i < 3; i++) second.record('undo a purchase', 'billing:create_refund');
    await second.flush();
    const ranked = async () =>
      (await second.search({ text: 'undo the purchase', limit: 5 })).map((hit) => hit.id);
    expect(await ranked()).toEqual(['billing:create_refund']);

    // Heard after the searcher, which subscribed first: by then it has dropped the evidence.
    const heard = new Promise<void>((resolve) => {
      secondStore.onForget(() => {
        resolve();
      });
    });
    await first.forget('billing:create_refund');
    await heard;
    expect(await ranked()).toEqual([]);
    second.record('undo a purchase', 'billing:create_refund');
    await second.flush();
    const rows = await storeAt(path).load();
    expect(rows.map((row) => row.weight)).toEqual(rows.map(() => 1));
    expect(rows.length).toBeGreaterThan(0);
  });

  it("keeps the weight another process gave a term when one process's bound drops it", async () => {
    const path = freshPath();
    const stores = [storeAt(path), storeAt(path)];
    const [one, two] = stores.map((store) =>
      createLearningSearcher({ store, maxTermsPerTool: 4, now: () => 1_000_000 }),
    ) as [LearningSearcher, LearningSearcher];
    for (const searcher of [one, two]) searcher.upsert(doc);
    await Promise.all([one.ready, two.ready]);
    for (let i = 0; i < 3; i++) two.record('walrus', doc.id);
    await two.flush();
    // Held once here, `walrus` is the weakest this searcher knows of when `quokka` comes.
    for (const word of ['walrus', 'narwhal', 'narwhal', 'quokka']) one.record(word, doc.id);
    await one.flush();
    const rows = await storeAt(path).load();
    expect(rows.map((row) => `${row.term} ${String(row.weight)}`).sort()).toEqual([
      '=narwhal 2',
      '=walru 4',
      'narwhal 2',
      'walru 4',
    ]);
    // Its memory is the file's again: the word the other searcher taught ranks the tool.
    const hits = await one.search({ text: 'walrus', limit: 5 });
    expect(hits.map((hit) => hit.id)).toEqual([doc.id]);
  });

  it('bounds the terms of a tool while two processes add to it at once', async () => {
    const path = freshPath();
    storeAt(path);
    const count = 50;
    const writers = [
      ['a', '1'],
      ['b', '2'],
    ].map(([prefix, offset]) =>
      children.start('./evidence-writer.fixture.ts', [
        path,
        prefix ?? '',
        String(count),
        offset ?? '',
      ]),
    );
    await Promise.all(writers.map((writer) => writer.line('ready')));
    const reports = writers.map((writer) => writer.line('{'));
    for (const writer of writers) writer.child.stdin.end('go\n');
    const failures = (await Promise.all(reports)).flatMap(
      (line) => (JSON.parse(line) as { failures: string[] }).failures,
    );
    expect(failures).toEqual([]);
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([0, 0]);
    // The three heaviest of both writers' terms: a49 (99), b48 (98), b49 (100).
    const rows = await storeAt(path).load();
    expect(rows.map((row) => row.term).sort()).toEqual(['a49', 'b48', 'b49']);
  }, 60_000);

  it('reports a corrupted page it watches as a store_error, and keeps the process up', async () => {
    const path = freshPath();
    const watcher = temp.track(createSqliteEvidenceStore({ path, pollIntervalMs: 10 }));
    await watcher.forget('billing:create_refund');
    watcher.onForget(() => undefined);
    // The forgets table's one page overwritten, as a bad disk sector or a stray write would.
    const raw = new Database(path);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const { rootpage } = raw
      .prepare<[], { rootpage: number }>(
        "SELECT rootpage FROM sqlite_master WHERE name = 'search_evidence_forgets'",
      )
      .get() ?? { rootpage: 0 };
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.close();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const reported = new Promise<unknown>((resolve) => {
      vi.spyOn(console, 'error').mockImplementationOnce(resolve);
    });
    // Another process's write to another table moves the file's version: the watcher reads.
    await storeAt(path).save([{ toolId: 'a:b', term: 'q', weight: 1, updatedAt: 1 }]);
    expect(await reported).toMatchObject({ code: 'store_error' });
    vi.restoreAllMocks();
  });

  it('fails to open a directory', () => {
    expect(() => createSqliteEvidenceStore({ path: temp.root() })).toThrow(
      expect.objectContaining({ code: 'store_error' }),
    );
  });
});

describe('createSqliteVectorCache', () => {
  it('gives a second connection the vectors the first one stored', async () => {
    const path = freshPath();
    const first = createSqliteVectorCache({ path });
    const second = createSqliteVectorCache({ path });
    try {
      await first.put([{ fingerprint: 'abc', vector: [0.5, -1.25, 3] }]);
      const found = await second.get(['abc', 'missing']);
      expect([...found.keys()]).toEqual(['abc']);
      expect(Array.from(found.get('abc') ?? [])).toEqual([0.5, -1.25, 3]);
    } finally {
      first.close();
      second.close();
    }
  });
});
