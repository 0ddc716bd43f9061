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
  },
);
