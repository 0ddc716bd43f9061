import { describePinStoreContract } from '@toolplane/toolkit/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPinStore } from './postgres-pins.js';
import { hasPostgres, startPostgres, type PostgresServer } from './testing/postgres-server.js';

const available = hasPostgres();

describe.runIf(available)('createPostgresPinStore', () => {
  let server: PostgresServer;
  let schemas = 0;
  let schema = '';
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server.stop();
  }, 60_000);

  // Each contract test gets a schema of its own, so they start empty.
  describePinStoreContract('on a throwaway server', {
    create: () =>
      createPostgresPinStore({
        connectionString: server.url,
        schema: (schema = `pins_${String(++schemas)}`),
      }),
    reopen: () => createPostgresPinStore({ connectionString: server.url, schema, listen: false }),
  });

  it('rejects a bad schema name', async () => {
    await expect(
      createPostgresPinStore({ connectionString: server.url, schema: 'Bad-Name' }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
  });
});
