import { randomBytes } from 'node:crypto';
import { readFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialKey, type OAuthCredentialRecord } from '@toolplane/toolkit/oauth';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteCredentialStore } from './sqlite-credentials.js';
import { createSqliteStore } from './sqlite-store.js';

let root: string;
let counter = 0;
const freshPath = (): string => join(root, `creds-${String(++counter)}`, 'store.db');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'store-sqlite-creds-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const ACCESS = `access-${randomBytes(12).toString('hex')}`;
const REFRESH = `refresh-${randomBytes(12).toString('hex')}`;
const record: OAuthCredentialRecord = {
  tokens: { access_token: ACCESS, refresh_token: REFRESH, token_type: 'Bearer', scope: 'a b' },
  client: { client_id: 'c1', client_secret: `secret-${REFRESH}` },
  expiresAt: 2_000_000_000_000,
  scopes: ['a', 'b'],
  updatedAt: 5,
};
const key = credentialKey('github', 'https://mcp.example.com/mcp');

async function filesText(dir: string): Promise<string> {
  const names = await readdir(dir);
  const parts = await Promise.all(names.map((name) => readFile(join(dir, name))));
  return Buffer.concat(parts).toString('latin1');
}

describe('createSqliteCredentialStore', () => {
  it('keeps records sealed in a real file, alongside the prompt store, across reopening', async () => {
    const path = freshPath();
    const tokenKey = randomBytes(32);
    const prompts = createSqliteStore({ path });
    const store = createSqliteCredentialStore({ path, key: tokenKey });
    await store.save(key, record);
    expect(await store.load(key)).toEqual(record);
    expect(await store.list()).toEqual([key]);
    store.close();
    await prompts.close();
    const text = await filesText(join(path, '..'));
    for (const secret of [ACCESS, REFRESH, 'secret-']) expect(text).not.toContain(secret);
    const raw = new Database(path, { readonly: true });
    const rows = raw.prepare('SELECT key, sealed FROM oauth_credentials').all() as {
      key: string;
      sealed: string;
    }[];
    raw.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed.startsWith('v1.')).toBe(true);
    const again = createSqliteCredentialStore({ path, key: tokenKey });
    expect(await again.load(key)).toEqual(record);
    await again.delete(key);
    expect(await again.load(key)).toBeUndefined();
    expect(await again.list()).toEqual([]);
    again.close();
  });

  it('refuses records sealed under another key, and a row altered in the file', async () => {
    const path = freshPath();
    const store = createSqliteCredentialStore({ path, key: randomBytes(32) });
    await store.save(key, record);
    store.close();
    const other = createSqliteCredentialStore({ path, key: randomBytes(32) });
    expect(await rejectionCodeOf(other.load(key))).toBe('store_error');
    other.close();
    const raw = new Database(path);
    raw.prepare("UPDATE oauth_credentials SET key = 'other https://x/'").run();
    raw.close();
    const moved = createSqliteCredentialStore({ path, key: randomBytes(32) });
    expect(await rejectionCodeOf(moved.load('other https://x/'))).toBe('store_error');
    moved.close();
  });

  it('needs TOOLPLANE_TOKEN_KEY when no key is given', () => {
    const saved = process.env.TOOLPLANE_TOKEN_KEY;
    delete process.env.TOOLPLANE_TOKEN_KEY;
    try {
      expect(() => createSqliteCredentialStore({ path: freshPath() })).toThrow(
        /TOOLPLANE_TOKEN_KEY/,
      );
    } finally {
      if (saved !== undefined) process.env.TOOLPLANE_TOKEN_KEY = saved;
    }
  });
});
