import { randomBytes } from 'node:crypto';
import { credentialKey, type OAuthCredentialRecord } from '@toolplane/toolkit/oauth';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresCredentialStore } from './postgres-credentials.js';
import { createPostgresStore } from './postgres-store.js';
import { hasPostgres, startPostgres, type PostgresServer } from './testing/postgres-server.js';

const ACCESS = `access-${randomBytes(12).toString('hex')}`;
const REFRESH = `refresh-${randomBytes(12).toString('hex')}`;
const record: OAuthCredentialRecord = {
  tokens: { access_token: ACCESS, refresh_token: REFRESH, token_type: 'Bearer' },
  client: { client_id: 'c1', client_secret: `secret-${REFRESH}` },
  scopes: ['a'],
  updatedAt: 7,
};
const key = credentialKey('docs', 'https://mcp.example.com/mcp');
let counter = 0;
const freshSchema = (): string => `creds_${String(process.pid)}_${String(++counter)}`;

describe.runIf(hasPostgres())('createPostgresCredentialStore on a real PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let admin: Pool;
  const url = (): string => server?.url ?? '';

  beforeAll(async () => {
    server = await startPostgres();
    admin = new Pool({ connectionString: url() });
  }, 180_000);
  afterAll(async () => {
    await admin.end();
    await server?.stop();
  });

  it('keeps records sealed, shares the schema with the store, and survives reopening', async () => {
    const schema = freshSchema();
    const prompts = await createPostgresStore({ connectionString: url(), schema });
    const tokenKey = randomBytes(32);
    const store = await createPostgresCredentialStore({
      connectionString: url(),
      schema,
      key: tokenKey,
    });
    await store.save(key, record);
    await store.save(key, { ...record, updatedAt: 8 });
    expect(await store.load(key)).toEqual({ ...record, updatedAt: 8 });
    expect(await store.list()).toEqual([key]);
    const rows = await admin.query<{ key: string; sealed: string }>(
      `SELECT key, sealed FROM ${schema}.oauth_credentials`,
    );
    expect(rows.rows).toHaveLength(1);
    const dump = JSON.stringify(rows.rows);
    for (const secret of [ACCESS, REFRESH, 'secret-']) expect(dump).not.toContain(secret);
    await store.close();
    await prompts.close();
    const again = await createPostgresCredentialStore({
      connectionString: url(),
      schema,
      key: tokenKey,
    });
    expect(await again.load(key)).toEqual({ ...record, updatedAt: 8 });
    await again.delete(key);
    expect(await again.list()).toEqual([]);
    await again.close();
  });

  it('refuses a record sealed under another key or moved to another key', async () => {
    const schema = freshSchema();
    const store = await createPostgresCredentialStore({
      connectionString: url(),
      schema,
      key: randomBytes(32),
    });
    await store.save(key, record);
    const other = await createPostgresCredentialStore({
      connectionString: url(),
      schema,
      key: randomBytes(32),
    });
    expect(await rejectionCodeOf(other.load(key))).toBe('store_error');
    await admin.query(`UPDATE ${schema}.oauth_credentials SET key = 'x https://y/'`);
    expect(await rejectionCodeOf(store.load('x https://y/'))).toBe('store_error');
    await other.close();
    await store.close();
  });

  it('refuses bad options with invalid_config, and an unreachable server with store_error, masking the password', async () => {
    expect(
      await rejectionCodeOf(
        createPostgresCredentialStore({
          connectionString: url(),
          schema: 'Bad-Name',
          key: randomBytes(32),
        }),
      ),
    ).toBe('invalid_config');
    expect(
      await rejectionCodeOf(
        createPostgresCredentialStore({ connectionString: url(), key: randomBytes(31) }),
      ),
    ).toBe('invalid_config');
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const failing = createPostgresCredentialStore({
      connectionString: `postgres://u:${password}@127.0.0.1:1/db`,
      key: randomBytes(32),
    });
    const error = await failing.catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toContain(password);
  });
});
