// The stores a config keeps beside its user store: pins (with the audit log), learned search
// evidence, search vectors and connectors' OAuth tokens all live in the same SQLite file or
// PostgreSQL schema, or all in memory. Which of the three a config names is decided here, once,
// and each kind of store is made from that one answer.
import {
  createMemoryEvidenceStore,
  createMemoryVectorCache,
  type EvidenceStore,
  type VectorCache,
} from '@toolplane/toolindex';
import {
  createMemoryPinStore,
  createMemoryStore,
  type PinStore,
  type Store,
} from '@toolplane/toolkit';
import type { OAuthCredentialStore } from '@toolplane/toolkit/oauth';
import type { ToolError } from '@toolplane/toolmodel';
import type { StoreConfig } from '../config.js';
import { postgresFamily } from './postgres-family.js';

/** A store that may hold a connection or a file open until it is closed. */
export type Closable<T> = T & { close?: () => unknown };

/** A credential store and the means to close it. */
export interface OpenCredentials {
  readonly store: OAuthCredentialStore;
  close(): Promise<void>;
}

/**
 * Opens each kind of store beside one user store. Nothing is opened, and no driver loaded, until
 * a kind is asked for: `store: memory` never loads a native module, and pg loads only for
 * PostgreSQL.
 */
export interface StoreFamily {
  /**
   * The user store (the `user` namespace's prompts and resources). On PostgreSQL, `listen: false`
   * (a one-shot command) holds no connection listening for other processes' changes.
   *
   * @throws {ToolError} `store_error` when it cannot be opened; `cancelled` when `signal` aborts.
   */
  userStore(options?: {
    readonly signal?: AbortSignal | undefined;
    readonly listen?: boolean | undefined;
    /** Hears the listening connection's losses and failed reconnects (PostgreSQL). */
    readonly onError?: ((error: ToolError) => void) | undefined;
  }): Promise<Store>;
  /**
   * The pin store (pins, pending changes, audit log). On PostgreSQL, `listen: false` (a one-shot
   * command) holds no connection listening for other processes' pin changes.
   *
   * @throws {ToolError} `store_error` when it cannot be opened.
   */
  pinStore(options?: {
    readonly listen?: boolean | undefined;
    /** Hears the listening connection's losses (PostgreSQL). */
    readonly onError?: ((error: ToolError) => void) | undefined;
  }): Promise<PinStore>;
  /**
   * The evidence a learning searcher keeps. It listens for other processes' forgets only once a
   * searcher subscribes, so a one-shot command holds nothing open for it.
   *
   * @throws {ToolError} `store_error`.
   */
  evidenceStore(options?: {
    /** Hears the listening connection's losses (PostgreSQL). */
    readonly onError?: ((error: ToolError) => void) | undefined;
  }): Promise<Closable<EvidenceStore>>;
  /** The cache of tools' embedding vectors. @throws {ToolError} `store_error`. */
  vectorCache(): Promise<Closable<VectorCache>>;
  /**
   * Connectors' OAuth tokens, sealed with the key `sealingKey` reads (asked only for a store that
   * keeps them on disk or in a database; memory keeps them in clear).
   *
   * @throws {ToolError} `invalid_config` from `sealingKey`; `store_error` when it cannot be opened.
   */
  credentialStore(options: {
    readonly sealingKey: () => Uint8Array;
    readonly signal?: AbortSignal | undefined;
  }): Promise<OpenCredentials>;
}

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
