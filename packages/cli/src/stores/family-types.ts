// What a family of stores offers (store-family.ts makes one for the store a config names).
import type { EvidenceStore, VectorCache } from '@toolplane/toolindex';
import type { PinStore, Store } from '@toolplane/toolkit';
import type { OAuthCredentialStore } from '@toolplane/toolkit/oauth';
import type { ToolError } from '@toolplane/toolmodel';

/** A store that may hold a connection or a file open until it is closed. */
export type Closable<T> = T & { close?: () => unknown };

/** A user store, which may have been opened read-only. */
export type UserStore = Store & {
  /**
   * Why the store is read-only (a SQLite file this user may not write): the message of the
   * `store_error` each of its writes, and its neighbours' (pins, learned search), is refused
   * with. `undefined` or absent when it can be written.
   */
  readonly readOnly?: string | undefined;
};

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
  }): Promise<UserStore>;
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
