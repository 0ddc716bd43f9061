import { describePinStoreContract } from '@toolplane/toolkit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { useChildren } from './child.fixture.js';
import { createSqlitePinStore } from './sqlite-pins.js';
import { useTempDb } from './temp-db.fixture.js';

const temp = useTempDb('store-sqlite-pins-');
const children = useChildren();

let contractPath = '';
describePinStoreContract('createSqlitePinStore on a file', {
  create: () => createSqlitePinStore({ path: (contractPath = temp.fresh()) }),
  reopen: () => createSqlitePinStore({ path: contractPath }),
});

describe('createSqlitePinStore', () => {
  it('fails to open a directory, and refuses calls once closed', async () => {
    expect(() => createSqlitePinStore({ path: temp.root() })).toThrow(
      expect.objectContaining({ code: 'store_error' }),
    );
    const store = createSqlitePinStore({ path: temp.fresh() });
    await store.close();
    await expect(store.listPins()).rejects.toMatchObject({ code: 'store_error' });
  });

  it('loses no write when two processes record and accept changes in one file at once', async () => {
    const path = temp.fresh();
    await createSqlitePinStore({ path }).close();
    const count = 400;
    const writers = ['one', 'two'].map((prefix) =>
      children.start('./pin-writer.fixture.ts', [path, prefix, String(count)]),
    );
    await Promise.all(writers.map((writer) => writer.line('ready')));
    const reports = writers.map((writer) => writer.line('{'));
    for (const writer of writers) writer.child.stdin.end('go\n');
    const failures = (await Promise.all(reports)).flatMap(
      (line) => (JSON.parse(line) as { failures: string[] }).failures,
    );
    expect({ failed: failures.length, first: failures.slice(0, 3) }).toEqual({
      failed: 0,
      first: [],
    });
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([0, 0]);

    const store = temp.track(createSqlitePinStore({ path }));
    const audit = await store.listAudit({ limit: 10_000 });
    const changed = audit.filter((record) => record.kind === 'pin.changed');
    // Every definition was new, so every call recorded its change and its audit record.
    expect(changed).toHaveLength(2 * count);
    const accepted = audit.filter((record) => record.kind === 'pin.accepted');
    const [pin] = await store.listPins('fx');
    const [pending] = await store.listChanges('fx');
    // The pin is the last definition accepted; a change still pending is the last one recorded.
    expect(pin?.fingerprint).toBe(accepted.at(-1)?.fingerprint);
    if (pending !== undefined)
      expect(pending.current.fingerprint).toBe(changed.at(-1)?.fingerprint);
  }, 60_000);
});
