import { describe, expect, it } from 'vitest';
import { createPostgresPool } from './connection-options.js';
import { createPostgresEvidenceStore } from './postgres-evidence.js';
import { createPostgresPinStore } from './postgres-pins.js';
import { createPostgresStore } from './postgres-store.js';
import { hasPostgres } from './testing/postgres-server.js';
import { useThrowawayPostgres } from './testing/throwaway-postgres.js';

describe('createPostgresPool', () => {
  it.each([{ connectTimeoutMs: -1 }, { statementTimeoutMs: 1.5 }, { max: 0 }, { max: Number.NaN }])(
    'refuses %o with invalid_config',
    (bad) => {
      expect(() =>
        createPostgresPool({ connectionString: 'postgres://127.0.0.1:1/none', ...bad }),
      ).toThrow(expect.objectContaining({ code: 'invalid_config' }) as Error);
    },
  );
});

describe.runIf(hasPostgres())('createPostgresPool on a throwaway server', () => {
  const server = useThrowawayPostgres();

  it('gives its connections the stores’ statement timeout, or the one asked for', async () => {
    const plain = createPostgresPool({ connectionString: server().url });
    const short = createPostgresPool({ connectionString: server().url, statementTimeoutMs: 2_500 });
    try {
      const timeout = async (pool: typeof plain) =>
        (await pool.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows[0]
          ?.statement_timeout;
      expect(await timeout(plain)).toBe('10s');
      expect(await timeout(short)).toBe('2500ms');
    } finally {
      await plain.end();
      await short.end();
    }
  });

  it('is lent to several stores, which leave it open when they close', async () => {
    const pool = createPostgresPool({ connectionString: server().url, max: 4 });
    try {
      const store = await createPostgresStore({ pool, schema: 'lent' });
      const pins = await createPostgresPinStore({ pool, schema: 'lent' });
      const evidence = await createPostgresEvidenceStore({ pool, schema: 'lent' });
      evidence.onForget(() => undefined);
      await Promise.all([store.listPrompts(), pins.listPins(), evidence.load()]);
      expect(pool.totalCount).toBeLessThanOrEqual(4);
      await store.close();
      await pins.close();
      await evidence.close();
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
