// A store file this user may read but not write: a 0444 file, a 0555 directory, a file another
// process keeps writing. The tests run as root in CI, and root may write anything, so the opening
// runs with the effective ids of another user (asOtherUser); the modes are real.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asOtherUser } from '@toolplane/fixtures';
import type { StoreChange } from '@toolplane/toolkit';
import type { ToolError } from '@toolplane/toolmodel';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteCredentialStore } from './sqlite-credentials.js';
import { createSqliteEvidenceStore } from './sqlite-evidence.js';
import { createSqlitePinStore } from './sqlite-pins.js';
import { createSqliteStore } from './sqlite-store.js';
import { createSqliteVectorCache } from './sqlite-vectors.js';
import { useTempDb } from './temp-db.fixture.js';

const temp = useTempDb('store-sqlite-ro-');
const key = randomBytes(32);
const credentialKey = 'docs\u0000https://mcp.example.com/mcp';

beforeAll(async () => {
  // mkdtemp made it 0700: the other user must reach the files inside.
  await chmod(temp.root(), 0o755);
});

// Modes put back, so the temporary directory can be removed by a user other than root.
const restore: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const undo of restore.splice(0)) await undo();
});

/** Sets `path`'s mode until the test ends. */
async function mode(path: string, bits: number): Promise<void> {
  await chmod(path, bits);
  restore.push(() => chmod(path, 0o755));
}

/** A store file with a prompt, a pin, learned evidence, a vector and a token, closed (no -wal). */
async function writtenStore(): Promise<string> {
  const path = temp.fresh();
  const store = createSqliteStore({ path });
  await store.putPrompt({ name: 'greet', template: 'Hello' });
  await store.close();
  const pins = createSqlitePinStore({ path });
  await pins.pinFirst(
    { namespace: 'fx', tool: 'echo', fingerprint: 'sha256:1', definition: '{}', pinnedAt: 1 },
    { kind: 'pin.first', at: 1, toolId: 'fx:echo' },
  );
  await pins.close();
  const evidence = createSqliteEvidenceStore({ path });
  await evidence.add([{ toolId: 'fx:echo', term: 'say', weight: 1, updatedAt: 1 }], {
    halfLifeMs: 1000,
  });
  evidence.close();
  const vectors = createSqliteVectorCache({ path });
  await vectors.put([{ fingerprint: 'f', vector: [1, 2] }]);
  vectors.close();
  const credentials = createSqliteCredentialStore({ path, key });
  await credentials.save(credentialKey, {
    tokens: { access_token: 'a', token_type: 'Bearer' },
    updatedAt: 1,
  });
  credentials.close();
  return path;
}

const digest = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** Opens every store on `path` as the other user, reads each, and tries each kind of write. */
async function readAndWrite(path: string) {
  return asOtherUser(async () => {
    const store = temp.track(createSqliteStore({ path, pollIntervalMs: 0 }));
    const pins = temp.track(createSqlitePinStore({ path }));
    const evidence = temp.track(createSqliteEvidenceStore({ path }));
    const vectors = temp.track(createSqliteVectorCache({ path }));
    const credentials = temp.track(createSqliteCredentialStore({ path, key }));
    const refusals = await Promise.allSettled([
      store.putPrompt({ name: 'new', template: 'x' }),
      store.deletePrompt('greet'),
      store.putResource({ uri: 'notes://a', name: 'a', text: 'a' }),
      store.deleteResource('notes://a'),
      pins.pinFirst(
        { namespace: 'fx', tool: 'add', fingerprint: 'sha256:2', definition: '{}', pinnedAt: 2 },
        { kind: 'pin.first', at: 2, toolId: 'fx:add' },
      ),
      pins.appendAudit({ kind: 'pin.first', at: 2, toolId: 'fx:add' }),
      pins.accept({ namespace: 'fx' }, 'me'),
      evidence.add([{ toolId: 'fx:echo', term: 'x', weight: 1, updatedAt: 2 }], {
        halfLifeMs: 1000,
      }),
      evidence.forget(),
      vectors.put([{ fingerprint: 'g', vector: [3] }]),
      credentials.delete(credentialKey),
    ]);
    return {
      readOnly: [store, pins, evidence, vectors, credentials].map((s) => s.readOnly),
      prompts: (await store.listPrompts()).map((prompt) => prompt.name),
      pins: (await pins.listPins()).map((pin) => pin.tool),
      evidence: (await evidence.load()).map((row) => row.term),
      vectors: [...(await vectors.get(['f'])).keys()],
      token: (await credentials.load(credentialKey))?.tokens?.access_token,
      refusals: refusals.map((settled) =>
        settled.status === 'rejected'
          ? {
              code: (settled.reason as ToolError).code,
              message: (settled.reason as ToolError).message,
            }
          : { code: 'written' },
      ),
    };
  });
}

/** What {@link readAndWrite} finds on a store it may only read: everything, and no write. */
function expectReadOnly(seen: Awaited<ReturnType<typeof readAndWrite>>, why: RegExp): void {
  const [message] = seen.readOnly;
  expect(message).toMatch(why);
  // One message for every store of the file: said once, it covers every refusal.
  expect(new Set(seen.readOnly)).toEqual(new Set([message]));
  expect(seen).toMatchObject({
    prompts: ['greet'],
    pins: ['echo'],
    evidence: ['say'],
    vectors: ['f'],
    token: 'a',
  });
  for (const refusal of seen.refusals) {
    expect(refusal).toEqual({ code: 'store_error', message });
  }
}

describe('SQLite stores on a file this user may not write', () => {
  it('read a 0444 file in a directory anyone may write, and refuse every write', async () => {
    const path = await writtenStore();
    const before = await digest(path);
    await mode(path, 0o444);
    await mode(dirname(path), 0o777);
    const seen = await readAndWrite(path);
    expectReadOnly(seen, /is read-only \(this user may not write the file, EACCES\)/);
    expect(seen.readOnly[0]).not.toContain('as it was when opened');
    expect(await digest(path)).toBe(before);
  });

  it('read a 0444 file in a 0555 directory as it was when opened (no -wal file can be made)', async () => {
    const path = await writtenStore();
    const before = await digest(path);
    await mode(path, 0o444);
    await mode(dirname(path), 0o555);
    const seen = await readAndWrite(path);
    expectReadOnly(
      seen,
      /read-only \(this user may not write the file.*read as it was when opened/,
    );
    expect(await digest(path)).toBe(before);
  });

  it('read a writable file in a 0555 directory, where SQLite cannot make its -wal file', async () => {
    const path = await writtenStore();
    await mode(path, 0o666);
    await mode(dirname(path), 0o555);
    expectReadOnly(await readAndWrite(path), /may not create files in its directory/);
  });

  it('see what another connection writes after they opened the file', async () => {
    const path = await writtenStore();
    const writer = temp.track(createSqliteStore({ path }));
    await writer.putPrompt({ name: 'first', template: 'x' });
    // The writer holds the file open: its -wal and -shm files stay, for readers to share.
    await mode(path, 0o444);
    await mode(dirname(path), 0o555);
    const reader = await asOtherUser(() =>
      temp.track(createSqliteStore({ path, pollIntervalMs: 20 })),
    );
    expect(reader.readOnly).toMatch(/read-only/);
    expect(reader.readOnly).not.toContain('as it was when opened');
    const heard = new Promise<StoreChange>((resolve) => {
      const stop = reader.subscribe((change) => {
        stop();
        resolve(change);
      });
    });
    await writer.putPrompt({ name: 'later', template: 'x' });
    expect(await heard).toEqual({ kind: 'prompt', op: 'put', name: 'later' });
    expect((await reader.listPrompts()).map((prompt) => prompt.name)).toEqual([
      'first',
      'greet',
      'later',
    ]);
  });
});

describe('readOnly: true', () => {
  it('opens a file this user could write read-only, and says so in every refusal', async () => {
    const path = await writtenStore();
    const store = temp.track(createSqliteStore({ path, readOnly: true }));
    expect(store.readOnly).toMatch(/read-only \(it was opened with readOnly: true\)/);
    await expect(store.putPrompt({ name: 'new', template: 'x' })).rejects.toMatchObject({
      code: 'store_error',
      message: store.readOnly,
    });
    expect((await store.listPrompts()).map((prompt) => prompt.name)).toEqual(['greet']);
    expect(temp.track(createSqliteStore({ path: temp.fresh() })).readOnly).toBeUndefined();
  });

  it('reads as empty the tables a file does not have yet, without adding them', async () => {
    const path = temp.fresh();
    await createSqliteStore({ path }).close();
    const before = await digest(path);
    const pins = temp.track(createSqlitePinStore({ path, readOnly: true }));
    const evidence = temp.track(createSqliteEvidenceStore({ path, readOnly: true }));
    const vectors = temp.track(createSqliteVectorCache({ path, readOnly: true }));
    expect(await pins.listPins()).toEqual([]);
    expect(await pins.listAudit()).toEqual([]);
    expect(await evidence.load()).toEqual([]);
    expect((await vectors.get(['f'])).size).toBe(0);
    await expect(vectors.put([{ fingerprint: 'f', vector: [1] }])).rejects.toMatchObject({
      code: 'store_error',
    });
    expect(await digest(path)).toBe(before);
  });

  it('reads a file of an older schema version as it is, its newer tables as empty', async () => {
    const path = await writtenStore();
    // As version 1 left it: no oauth_credentials table yet.
    const raw = new Database(path);
    raw.exec('DROP TABLE oauth_credentials');
    raw.pragma('user_version = 1');
    raw.close();
    const before = await digest(path);
    const store = temp.track(createSqliteStore({ path, readOnly: true }));
    const credentials = temp.track(createSqliteCredentialStore({ path, key, readOnly: true }));
    expect((await store.listPrompts()).map((prompt) => prompt.name)).toEqual(['greet']);
    expect(await credentials.load(credentialKey)).toBeUndefined();
    expect(await digest(path)).toBe(before);
  });

  it('refuses a file that does not exist, and an in-memory database', () => {
    expect(() => createSqliteStore({ path: temp.fresh(), readOnly: true })).toThrow(
      expect.objectContaining({ code: 'store_error' }),
    );
    expect(() => createSqliteStore({ path: ':memory:', readOnly: true })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
