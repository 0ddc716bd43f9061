import { createHybridSearcher, createLearningSearcher } from '@toolplane/toolindex';
import { describe, expect, it } from 'vitest';
import { createPostgresEvidenceStore } from './postgres-evidence.js';
import { createPostgresStore } from './postgres-store.js';
import { createPostgresVectorCache } from './postgres-vectors.js';
import { hasPostgres } from './testing/postgres-server.js';
import { useThrowawayPostgres } from './testing/throwaway-postgres.js';

const available = hasPostgres();

// One server for both of the search caches (learned evidence, embedding vectors).
describe.runIf(available)('PostgreSQL search stores', () => {
  const server = useThrowawayPostgres();

  it('shares evidence between instances, newest write of a row winning', async () => {
    const first = await createPostgresEvidenceStore({ connectionString: server().url });
    const second = await createPostgresEvidenceStore({ connectionString: server().url });
    try {
      await first.save([
        { toolId: 'billing:refund', term: 'undo', weight: 2, updatedAt: 20 },
        { toolId: 'billing:refund', term: 'purchas', weight: 1, updatedAt: 20 },
      ]);
      await second.save([{ toolId: 'billing:refund', term: 'undo', weight: 9, updatedAt: 10 }]);
      const rows = await second.load();
      expect(rows.find((row) => row.term === 'undo')).toEqual({
        toolId: 'billing:refund',
        term: 'undo',
        weight: 2,
        updatedAt: 20,
      });

      const doc = {
        id: 'billing:create_refund',
        name: 'create_refund',
        namespace: 'billing',
        title: undefined,
        description: 'Refund a charge.',
        tags: [],
      };
      const learner = createLearningSearcher({ store: first });
      learner.upsert(doc);
      learner.record('undo a purchase', 'billing:create_refund');
      await learner.flush();
      const other = createLearningSearcher({ store: second });
      other.upsert(doc);
      await other.ready;
      const hits = await other.search({ text: 'undo the purchase', limit: 5 });
      expect(hits.map((hit) => hit.id)).toEqual(['billing:create_refund']);
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);

  it('keeps embedding vectors by fingerprint, so a second instance embeds nothing again', async () => {
    const embedded: string[] = [];
    const embed = (texts: readonly string[]) => {
      embedded.push(...texts);
      return Promise.resolve(texts.map((text) => [text.length, 1, 0.5]));
    };
    const doc = {
      id: 'billing:create_refund',
      name: 'create_refund',
      namespace: 'billing',
      title: undefined,
      description: 'Refund a charge.',
      tags: [],
    };
    const first = await createPostgresVectorCache({ connectionString: server().url });
    const second = await createPostgresVectorCache({ connectionString: server().url });
    try {
      const one = createHybridSearcher({ embed, cache: first, cacheKey: 'model-a' });
      one.upsert(doc);
      await one.warm();
      expect(embedded).toHaveLength(1);
      const two = createHybridSearcher({ embed, cache: second, cacheKey: 'model-a' });
      two.upsert(doc);
      await two.warm();
      expect(embedded).toHaveLength(1);
      // A vector comes back as it went in (as 32-bit floats); an unknown fingerprint not at all.
      await first.put([{ fingerprint: 'f', vector: [0.25, -1, 3] }]);
      const found = await second.get(['f', 'missing']);
      expect([...found.keys()]).toEqual(['f']);
      expect(Array.from(found.get('f') ?? [])).toEqual([0.25, -1, 3]);
      // Another model's vectors are other fingerprints: embedded again.
      const three = createHybridSearcher({ embed, cache: second, cacheKey: 'model-b' });
      three.upsert(doc);
      await three.warm();
      expect(embedded).toHaveLength(2);
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);

  it('rejects a bad schema name', async () => {
    await expect(
      createPostgresEvidenceStore({ connectionString: server().url, schema: 'Bad-Name' }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
    await expect(
      createPostgresVectorCache({ connectionString: server().url, schema: 'Bad-Name' }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
  });

  it('creates its tables once when several instances open them together on an empty schema', async () => {
    // CREATE … IF NOT EXISTS run at once by two sessions can fail on a catalog unique index:
    // instances starting together against a new database must take turns.
    for (let round = 0; round < 8; round++) {
      const where = { connectionString: server().url, schema: `together_${String(round)}` };
      const opened = await Promise.allSettled(
        Array.from({ length: 3 }, () => [
          createPostgresEvidenceStore(where),
          createPostgresVectorCache(where),
          createPostgresStore({ ...where, listen: false }),
        ]).flat(),
      );
      await Promise.all(
        opened.map((result) =>
          result.status === 'fulfilled' ? result.value.close() : Promise.resolve(),
        ),
      );
      expect(opened.filter((result) => result.status === 'rejected')).toEqual([]);
    }
  }, 60_000);
});
