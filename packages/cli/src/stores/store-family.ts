// The stores a config keeps beside its user store: pins (with the audit log), learned search
// evidence, search vectors and connectors' OAuth tokens all live in the same SQLite file or
// PostgreSQL schema, or all in memory. Which of the three a config names is decided here, once,
// and each kind of store is made from that one answer.
import { createMemoryEvidenceStore, createMemoryVectorCache } from '@toolplane/toolindex';
import { createMemoryPinStore, createMemoryStore } from '@toolplane/toolkit';
import type { StoreConfig } from '../config.js';
import type { StoreFamily } from './family-types.js';
import { postgresFamily } from './postgres-family.js';

export type { Closable, OpenCredentials, StoreFamily, UserStore } from './family-types.js';

/** The {@link StoreFamily} of the store a config names. */
export function storeFamily(config: StoreConfig): StoreFamily {
  switch (config.kind) {
    case 'memory':
      return memoryFamily();
    case 'sqlite':
      return sqliteFamily(config.path);
    case 'postgres':
      return postgresFamily(config);
  }
}

function memoryFamily(): StoreFamily {
  return {
    userStore: () => Promise.resolve(createMemoryStore()),
    pinStore: () => Promise.resolve(createMemoryPinStore()),
    evidenceStore: () => Promise.resolve(createMemoryEvidenceStore()),
    vectorCache: () => Promise.resolve(createMemoryVectorCache()),
    credentialStore: async () => {
      // The OAuth module loads only for a config with a protected server.
      const { MemoryCredentialStore } = await import('@toolplane/toolkit/oauth');
      return { store: new MemoryCredentialStore(), close: () => Promise.resolve() };
    },
  };
}

function sqliteFamily(path: string): StoreFamily {
  const driver = () => import('@toolplane/store-sqlite');
  return {
    userStore: async () => (await driver()).createSqliteStore({ path }),
    pinStore: async () => (await driver()).createSqlitePinStore({ path }),
    evidenceStore: async () => (await driver()).createSqliteEvidenceStore({ path }),
    vectorCache: async () => (await driver()).createSqliteVectorCache({ path }),
    credentialStore: async ({ sealingKey }) => {
      const key = sealingKey();
      const store = (await driver()).createSqliteCredentialStore({ path, key });
      return {
        store,
        close: () => {
          store.close();
          return Promise.resolve();
        },
      };
    },
  };
}
