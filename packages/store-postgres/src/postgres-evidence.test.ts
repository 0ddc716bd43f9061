import { createLearningSearcher, type LearningSearcher } from '@toolplane/toolindex';
import { describeEvidenceStoreContract } from '@toolplane/toolkit/testing/vitest';
import type { ToolError } from '@toolplane/toolmodel';
import { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresEvidenceStore, type PostgresEvidenceStore } from './postgres-evidence.js';
import { hasPostgres } from './testing/postgres-server.js';
import { useThrowawayPostgres } from './testing/throwaway-postgres.js';

const available = hasPostgres();

const doc = {
  id: 'billing:create_refund',
  name: 'create_refund',
  namespace: 'billing',
  title: undefined,
  description: 'Refund a charge.',
  tags: [],
};

/** Settles with the next forget `store` tells (after the searchers that subscribed before). */
const nextForget = (store: PostgresEvidenceStore) =>
  new Promise<string | undefined>((resolve) => {
    const stop = store.onForget((forget) => {
      stop();
      resolve(forget.toolId);
    });
  });

const ranked = async (searcher: LearningSearcher) =>
  (await searcher.search({ text: 'undo the purchase', limit: 5 })).map((hit) => hit.id);

// Two gateway instances of a fleet, each with its store and learning searcher, on one schema.
describe.runIf(available)('createPostgresEvidenceStore across instances', () => {
  const server = useThrowawayPostgres();
  let schemas = 0;

  // Each contract test gets a schema of its own, so they start empty.
  let schema = '';
  describeEvidenceStoreContract('on a throwaway server', {
    create: () =>
      createPostgresEvidenceStore({
        connectionString: server().url,
        schema: (schema = `evidence_${String(++schemas)}`),
      }),
    reopen: () => createPostgresEvidenceStore({ connectionString: server().url, schema }),
  });

  async function fleet(onError?: (error: ToolError) => void) {
    const where = { connectionString: server().url, schema: `evidence_${String(++schemas)}` };
    const firstStore = await createPostgresEvidenceStore(where);
    const secondStore = await createPostgresEvidenceStore({
      ...where,
      ...(onError === undefined ? {} : { onError }),
    });
    const first = createLearningSearcher({ store: firstStore });
    const second = createLearningSearcher({ store: secondStore });
    first.upsert(doc);
    second.upsert(doc);
    await Promise.all([first.ready, second.ready]);
    for (let i = 0; i < 3; i++) second.record('undo a purchase', 'billing:create_refund');
    await second.flush();
    expect(await ranked(second)).toEqual(['billing:create_refund']);
    return { where, first, second, firstStore, secondStore };
  }

  it('stops another instance ranking by forgotten evidence, and never writes it back', async () => {
    const { first, second, firstStore, secondStore } = await fleet();
    try {
      const heard = nextForget(secondStore);
      await first.forget('billing:create_refund');
      expect(await heard).toBe('billing:create_refund');
      expect(await ranked(second)).toEqual([]);
      // Its next learned use counts once: the three forgotten are not written back.
      second.record('undo a purchase', 'billing:create_refund');
      await second.flush();
      const rows = await firstStore.load();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((row) => row.weight)).toEqual(rows.map(() => 1));
    } finally {
      await firstStore.close();
      await secondStore.close();
    }
  }, 60_000);

  it('tells a forget made while its listening connection was down, once it is back', async () => {
    let lost: (error: ToolError) => void = () => undefined;
    const down = new Promise<ToolError>((resolve) => {
      lost = resolve;
    });
    const { where, first, second, firstStore, secondStore } = await fleet((error) => {
      lost(error);
    });
    const admin = new Pool({ connectionString: server().url });
    try {
      const heard = nextForget(secondStore);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [
        `LISTEN "${where.schema}_evidence"`,
      ]);
      expect((await down).code).toBe('store_error');
      await first.forget('billing:create_refund');
      expect(await heard).toBe('billing:create_refund');
      expect(await ranked(second)).toEqual([]);
    } finally {
      await firstStore.close();
      await secondStore.close();
      await admin.end();
    }
  }, 60_000);

  it("keeps the weight other instances gave a term when one instance's bound drops it", async () => {
    const where = { connectionString: server().url, schema: `evidence_${String(++schemas)}` };
    const stores = [
      await createPostgresEvidenceStore(where),
      await createPostgresEvidenceStore(where),
    ];
    try {
      const [one, two] = stores.map((store) =>
        createLearningSearcher({ store, maxTermsPerTool: 4, now: () => 1_000_000 }),
      ) as [LearningSearcher, LearningSearcher];
      for (const searcher of [one, two]) searcher.upsert(doc);
      await Promise.all([one.ready, two.ready]);
      for (let i = 0; i < 3; i++) two.record('walrus', doc.id);
      await two.flush();
      // Held once here, `walrus` is the weakest this instance knows of when `quokka` comes.
      for (const word of ['walrus', 'narwhal', 'narwhal', 'quokka']) one.record(word, doc.id);
      await one.flush();
      const rows = await (stores[0] as PostgresEvidenceStore).load();
      expect(rows.map((row) => `${row.term} ${String(row.weight)}`).sort()).toEqual([
        '=narwhal 2',
        '=walru 4',
        'narwhal 2',
        'walru 4',
      ]);
      // Its memory is the store's again: the word the other instance taught ranks the tool.
      const hits = await one.search({ text: 'walrus', limit: 5 });
      expect(hits.map((hit) => hit.id)).toEqual([doc.id]);
    } finally {
      for (const store of stores) await store.close();
    }
  }, 60_000);

  it('bounds the terms of a tool however many instances add at once', async () => {
    const where = { connectionString: server().url, schema: `evidence_${String(++schemas)}` };
    const stores = [
      await createPostgresEvidenceStore(where),
      await createPostgresEvidenceStore(where),
    ];
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (stores[i % 2] as PostgresEvidenceStore).add(
            [{ toolId: doc.id, term: `t${String(i)}`, weight: i + 1, updatedAt: 1000 }],
            { halfLifeMs: 1e9, maxTermsPerTool: 3 },
          ),
        ),
      );
      expect(answers.every((kept) => Array.isArray(kept) && kept.length <= 3)).toBe(true);
      const rows = await (stores[1] as PostgresEvidenceStore).load();
      expect(rows.map((row) => row.term).sort()).toEqual(['t10', 't11', 't9']);
    } finally {
      for (const store of stores) await store.close();
    }
  }, 60_000);

  it('adds to a row older than a thousand half-lives, which counts nothing', async () => {
    const where = { connectionString: server().url, schema: `evidence_${String(++schemas)}` };
    const store = await createPostgresEvidenceStore(where);
    try {
      const row = { toolId: doc.id, term: 'undo', weight: 1, updatedAt: 0 };
      await store.add([row], { halfLifeMs: 1 });
      await store.add([{ ...row, updatedAt: 5000 }], { halfLifeMs: 1 });
      expect(await store.load()).toEqual([{ ...row, updatedAt: 5000 }]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
