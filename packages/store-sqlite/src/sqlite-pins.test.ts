import { describePinStoreContract } from '@toolplane/toolkit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createSqlitePinStore } from './sqlite-pins.js';
import { useTempDb } from './temp-db.fixture.js';

const temp = useTempDb('store-sqlite-pins-');

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
});
