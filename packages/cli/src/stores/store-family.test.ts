import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { openToolkit } from '../open.js';
import { hasPostgres, postgresBinDir, startPostgres, type Postgres } from '../testing/fleet.js';
import { storeFamily, type StoreFamily } from './store-family.js';

const run = promisify(execFile);
const KEY = () => new Uint8Array(32).fill(7);

/** Opens every kind of store of `family`, uses each once, and closes them all. */
async function openEveryKind(family: StoreFamily): Promise<void> {
  const store = await family.userStore();
  const pins = await family.pinStore({ listen: false });
  const evidence = await family.evidenceStore();
  const vectors = await family.vectorCache();
  const credentials = await family.credentialStore({ sealingKey: KEY });
  try {
    expect(await store.listPrompts()).toEqual([]);
    expect(await pins.listPins()).toEqual([]);
    expect(await credentials.store.load('nowhere')).toBeUndefined();
  } finally {
    await store.close();
    await pins.close();
    await evidence.close?.();
    await vectors.close?.();
    await credentials.close();
  }
}

describe('storeFamily', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolplane-family-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens every kind of store in memory', async () => {
    await openEveryKind(storeFamily({ kind: 'memory' }));
  });

  it('opens every kind of store in one SQLite file', async () => {
    await openEveryKind(storeFamily({ kind: 'sqlite', path: join(dir, 'family.db') }));
  });

  it('reads no sealing key for memory, and fails with its error for a file', async () => {
    const refuse = (): Uint8Array => {
      throw Object.assign(new Error('no key'), { code: 'invalid_config' });
    };
    const memory = await storeFamily({ kind: 'memory' }).credentialStore({ sealingKey: refuse });
    await memory.close();
    await expect(
      storeFamily({ kind: 'sqlite', path: join(dir, 'keyless.db') }).credentialStore({
        sealingKey: refuse,
      }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
  });
});

describe.runIf(hasPostgres())(
  'the stores a toolkit opens on PostgreSQL',
  { timeout: 180_000 },
  () => {
    let postgres: Postgres | undefined;
    beforeAll(async () => {
      postgres = await startPostgres();
    }, 120_000);
    afterAll(async () => {
      await postgres?.stop();
    }, 60_000);

    /**
     * How many connections LISTEN for pin changes and for the user store's changes (its change
     * feed names its connection `toolplane:listen:<instance>`), in the default schema.
     */
    async function listeners(): Promise<{ pins: number; changes: number }> {
      const url = postgres?.url ?? '';
      const { stdout } = await run(join(postgresBinDir(), 'psql'), [
        url,
        '-At',
        '-F',
        ' ',
        '-c',
        `SELECT count(*) FILTER (WHERE query = 'LISTEN "toolplane_pins"'),
              count(*) FILTER (WHERE application_name LIKE 'toolplane:listen:%')
         FROM pg_stat_activity`,
      ]);
      const [pins, changes] = stdout.trim().split(' ').map(Number);
      return { pins: pins ?? NaN, changes: changes ?? NaN };
    }

    async function listenersWhileOpen(
      listen: boolean | undefined,
    ): Promise<{ pins: number; changes: number }> {
      const config = parseConfig(
        JSON.stringify({ store: { postgres: postgres?.url }, builtins: false, pinning: 'block' }),
        { file: join(tmpdir(), 'family.config.json'), env: {} },
      );
      const opened = await openToolkit(config, {
        connectors: 'none',
        ...(listen === undefined ? {} : { listen }),
      });
      try {
        return await listeners();
      } finally {
        await opened.close();
      }
    }

    it("listens for other processes' pin and store changes by default (a gateway)", async () => {
      expect(await listenersWhileOpen(undefined)).toEqual({ pins: 1, changes: 1 });
    });

    it('holds no listening connection with listen: false (a one-shot command)', async () => {
      expect(await listenersWhileOpen(false)).toEqual({ pins: 0, changes: 0 });
    });

    /** Client connections to the server, other than the one asking. */
    async function connections(): Promise<number> {
      const { stdout } = await run(join(postgresBinDir(), 'psql'), [
        postgres?.url ?? '',
        '-At',
        '-c',
        `SELECT count(*) FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      ]);
      return Number(stdout.trim());
    }

    /** Waits (bounded) until no connection is left: a closed one leaves the server shortly. */
    async function noConnectionsLeft(): Promise<number> {
      let left = await connections();
      for (let tries = 0; left > 0 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = await connections();
      }
      return left;
    }

    it("a gateway's stores share one pool: at most 10 connections under load, none once closed", async () => {
      expect(await noConnectionsLeft()).toBe(0);
      const config = parseConfig(
        JSON.stringify({
          store: { postgres: postgres?.url },
          builtins: false,
          pinning: 'block',
          // Vectors beside learned evidence; nothing is embedded with no tools, so the endpoint
          // is never asked.
          search: { learn: true, embeddings: { url: 'http://127.0.0.1:9/v1', model: 'm' } },
        }),
        { file: join(tmpdir(), 'family.config.json'), env: {} },
      );
      const opened = await openToolkit(config, { connectors: 'none', search: true });
      try {
        const { pins } = opened;
        if (pins === undefined) throw new Error('pinning is on: the pin store should be open');
        // Enough concurrent work to fill a pool of 10 twice over: a pool per kind of store
        // would open 10 for the user store and 10 more for pins.
        await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            i % 2 === 0 ? opened.store.listPrompts() : pins.listPins(),
          ),
        );
        const held = await connections();
        expect(held).toBeGreaterThan(0);
        expect(held).toBeLessThanOrEqual(10);
      } finally {
        await opened.close();
      }
      expect(await noConnectionsLeft()).toBe(0);
    });

    it('keeps the shared pool open until the last store using it closes', async () => {
      const family = storeFamily({ kind: 'postgres', connectionString: postgres?.url ?? '' });
      const store = await family.userStore({ listen: false });
      const pins = await family.pinStore({ listen: false });
      const credentials = await family.credentialStore({ sealingKey: KEY });
      await store.close();
      await credentials.close();
      expect(await pins.listPins()).toEqual([]);
      await pins.close();
      expect(await noConnectionsLeft()).toBe(0);
      // A store opened after the last closed gets a new pool.
      const again = await family.userStore({ listen: false });
      expect(await again.listPrompts()).toEqual([]);
      await again.close();
      expect(await noConnectionsLeft()).toBe(0);
    });
  },
);
