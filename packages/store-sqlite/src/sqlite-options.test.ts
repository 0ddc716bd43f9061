import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteCredentialStore } from './sqlite-credentials.js';
import { createSqliteEvidenceStore } from './sqlite-evidence.js';
import { createSqlitePinStore } from './sqlite-pins.js';
import { createSqliteStore } from './sqlite-store.js';
import { createSqliteVectorCache } from './sqlite-vectors.js';

let root: string;
let cwd: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'store-sqlite-options-'));
  cwd = process.cwd();
  // The default file is relative to the working directory: a store that fell back to it would
  // write it here, where the test can see it.
  process.chdir(root);
});
afterEach(async () => {
  process.chdir(cwd);
  await rm(root, { recursive: true, force: true });
});

/** The message of the `invalid_argument` that `build` throws. */
const messageOf = (build: () => unknown): string => errorMessageOf(build, 'invalid_argument');

describe('SQLite store options', () => {
  it('refuse a misspelled path instead of opening the default file', () => {
    const key = new Uint8Array(32);
    const opens: [() => unknown, string][] = [
      [() => createSqliteStore({ file: 'team.db' } as never), 'createSqliteStore'],
      [() => createSqlitePinStore({ file: 'team.db' } as never), 'createSqlitePinStore'],
      [() => createSqliteEvidenceStore({ file: 'team.db' } as never), 'createSqliteEvidenceStore'],
      [() => createSqliteVectorCache({ file: 'team.db' } as never), 'createSqliteVectorCache'],
      [
        () => createSqliteCredentialStore({ key, file: 'team.db' } as never),
        'createSqliteCredentialStore',
      ],
    ];
    for (const [open, opener] of opens) {
      expect(messageOf(open)).toBe(`${opener}: unknown option "file"; did you mean "path"?`);
    }
    expect(existsSync(join(root, '.toolplane'))).toBe(false);
    expect(existsSync(join(root, 'team.db'))).toBe(false);
  });

  it('name the nearest key, and refuse bad values before any file is touched', () => {
    expect(messageOf(() => createSqliteStore({ path: 'a.db', pollIntervalMS: 5 } as never))).toBe(
      'createSqliteStore: unknown option "pollIntervalMS"; did you mean "pollIntervalMs"?',
    );
    expect(messageOf(() => createSqliteVectorCache({ pollIntervalMs: 5 } as never))).toContain(
      'known options: path, busyTimeoutMs, readOnly',
    );
    const bad: [() => unknown, RegExp][] = [
      [
        () => createSqliteStore({ path: 'a.db', pollIntervalMs: Number.NaN }),
        /pollIntervalMs must be a whole number/,
      ],
      [() => createSqliteStore({ path: 'a.db', pollIntervalMs: -5 }), /pollIntervalMs must be/],
      [
        () => createSqlitePinStore({ path: 'a.db', busyTimeoutMs: 2 ** 31 }),
        /busyTimeoutMs must be .* at most 2147483647/,
      ],
      [
        () => createSqliteStore({ path: 'a.db', synchronous: 'off' as never }),
        /synchronous must be "full" or "normal", got "off"/,
      ],
      [
        () => createSqliteStore({ path: 5 as never }),
        /path must be a file path string, got number/,
      ],
      [
        () => createSqliteStore({ path: 'a.db', readOnly: 'yes' as never }),
        /readOnly must be true or false/,
      ],
    ];
    for (const [open, message] of bad) expect(messageOf(open)).toMatch(message);
    expect(existsSync(join(root, 'a.db'))).toBe(false);
  });

  it('take 0 where it means no wait or no watching', async () => {
    const store = createSqliteStore({ path: 'ok.db', busyTimeoutMs: 0, pollIntervalMs: 0 });
    await store.close();
    expect(existsSync(join(root, 'ok.db'))).toBe(true);
  });
});
