import { builtinTools } from '@toolplane/builtins';
import {
  auditApprovals,
  withAuditFeed,
  type AuditRecord,
  type ConnectorListKind,
  createToolkit,
  loadPrompts,
  type Middleware,
  type Logger,
  type PinStore,
  type StdioPrestarts,
  type Store,
  type Toolkit,
  type ToolkitEvent,
} from '@toolplane/toolkit';
import type { ToolError } from '@toolplane/toolmodel';
import type { CliConfig, ConnectorConfig, StoreConfig } from './config.js';
import type { OpenSearch } from './open-search.js';
import type { OpenCredentials } from './oauth-clients.js';
import { storeFamily } from './stores/store-family.js';
import { VERSION } from './version.js';

const ignore = (): void => undefined;

/** A toolkit built from a {@link CliConfig}, with the store it reads; see {@link openToolkit}. */
export interface OpenToolkit {
  readonly toolkit: Toolkit;
  readonly store: Store;
  /**
   * The pin store (pins, pending changes, audit log) the toolkit was given; absent when the
   * config has pinning off and no approvals. The dashboard's Changes page reads it.
   */
  readonly pins: PinStore | undefined;
  /**
   * Starts the connectors, when {@link OpenToolkitOptions.start} was false; later calls do
   * nothing.
   */
  start(): void;
  /**
   * Settles once search has what it learned and every tool's embedding (with
   * {@link OpenToolkitOptions.search}); at once otherwise.
   */
  warmSearch(options?: { readonly signal?: AbortSignal }): Promise<void>;
  /**
   * Adds one server of a config to the running toolkit (opening the sealed OAuth tokens first
   * when it has `auth` and they are not open yet); it starts at once once {@link start} ran.
   * Used by the config reload.
   *
   * @throws {ToolError} `invalid_config` or `conflict` from `Toolkit.addConnector`.
   */
  addServer(connector: ConnectorConfig): Promise<string>;
  /**
   * Serves the builtin tools, or stops serving them (a config reload's `builtins` key): their
   * worker pool is made on first use and kept until {@link close}.
   */
  setBuiltins(on: boolean): void;
  /** Stops every connector (ending their children) and closes the store. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link openToolkit}. */
export interface OpenToolkitOptions {
  /**
   * Which connectors to start: all of them (default), none, or those of these namespaces (a
   * `tools call github:…` needs only `github`).
   */
  readonly connectors?: 'all' | 'none' | readonly string[];
  /** Hears connector state changes and list changes as they happen. */
  readonly onEvent?: (event: ToolkitEvent) => void;
  /** Wait for each started connector's first attempt before resolving (default true). */
  readonly wait?: boolean;
  /**
   * Start the connectors at once (default true). `serve` starts them itself once the gateway
   * is attached, so that they connect once, already offering what the gateway's clients can do.
   */
  readonly start?: boolean;
  /**
   * Search as the config's `search` section says: learning from use and embeddings (default
   * false: plain BM25, and nothing more opened, for commands that never search).
   */
  readonly search?: boolean;
  /** Hears a failure of the embeddings endpoint or of the search stores; search goes on. */
  readonly onSearchError?: (error: ToolError) => void;
  readonly signal?: AbortSignal;
  /**
   * Validate with ajv's compiled schemas (`'compiled'`, default), or with the toolkit's default
   * validator (`'default'`): what a command that runs no tool (`tools list`) passes, so that it
   * does not load ajv, which only pays off over many calls.
   */
  readonly validator?: 'compiled' | 'default';
  /** Wraps the user store before the toolkit reads it (`serve`'s metrics time its operations). */
  readonly wrapStore?: (store: Store) => Store;
  /** Where `TOOLPLANE_TOKEN_KEY` is read for protected servers' tokens; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Runner middleware for every tool call, after the approval step (see the toolkit's). */
  readonly middleware?: readonly Middleware[];
  /**
   * Middleware that only watches every tool call, outside the approval step, so it sees the
   * calls approval holds or refuses too (`serve`'s dashboard call feed): the toolkit's
   * `observers`.
   */
  readonly observers?: readonly Middleware[];
  /** Hears pinning's log lines (a tool pinned, a tool changed); default none. */
  readonly pinLogger?: Logger;
  /** Where the toolkit's own warnings go (a tool it cannot hold); default nowhere. */
  readonly logger?: Logger;
  /** Hears each record this process adds to the audit log (approvals, pins), once stored. */
  readonly onAudit?: (record: AuditRecord) => void;
  /**
   * Hear other processes' changes to pins and to the user store as they happen (default true):
   * on PostgreSQL a connection of each store listens for them. A one-shot command (`tools list`,
   * `tools call`) passes false, so it holds no such connection for its few seconds.
   */
  readonly listen?: boolean;
  /**
   * Hears when a connection listening for those changes is lost, or cannot reconnect (it keeps
   * trying): what `serve` logs, so an operator sees the store go and knows changes are late.
   */
  readonly onStoreError?: (error: ToolError) => void;
  /**
   * Hears, once the store is open and before anything is read or written, that it was opened
   * read-only (a SQLite file this user may not write): `message` says why, and is the message of
   * the `store_error` each write to it (a prompt, a tool pin, what search learns) is refused with.
   */
  readonly onReadOnly?: (message: string) => void;
  /**
   * Hears when the store refused to save a connector's OAuth credentials (the tokens of a
   * refresh, on a read-only store): they are kept in memory and used until the process ends.
   * Without it, such a refresh fails the connection attempt that made it.
   */
  readonly onUnsavedCredentials?: (error: ToolError) => void;
  /** Stdio servers started already, for the connectors to adopt (see `prestart.ts`). */
  readonly prestarted?: StdioPrestarts;
  /**
   * How a stdio server's child is let go when the toolkit closes: waited for (default), or, for
   * a one-shot command, `'release'`d (see `StdioSource.closing`).
   */
  readonly closing?: 'wait' | 'release';
  /**
   * The servers' lists to mirror (default all, see `ConnectorOptions.lists`): a command that
   * shows only tools passes `['tools']`, so no server's prompts or resources are fetched for it.
   */
  readonly lists?: readonly ConnectorListKind[];
}

/**
 * Builds a toolkit from a config: the builtin tools, the prompts folder, the user store and the
 * upstream servers, which it starts (and, unless `wait` is false, waits for: each connects or
 * fails its first attempt, so a server that cannot start never blocks the others).
 *
 * @throws {ToolError} `invalid_prompt` for a bad prompt file, `store_error` when the store cannot
 * be opened, `cancelled` when `signal` aborts.
 */
export async function openToolkit(
  config: CliConfig,
  options: OpenToolkitOptions = {},
): Promise<OpenToolkit> {
  const { signal } = options;
  const prompts =
    config.promptsDir === undefined
      ? []
      : await loadPrompts(config.promptsDir, signal === undefined ? {} : { signal });
  const family = storeFamily(config.store);
  const opened = await family.userStore({
    signal,
    listen: options.listen,
    onError: options.onStoreError,
  });
  if (opened.readOnly !== undefined) options.onReadOnly?.(opened.readOnly);
  const store = options.wrapStore?.(opened) ?? opened;
  let pins: PinStore | undefined;
  try {
    // The pin store also keeps the audit log: approvals are recorded there with pinning off.
    pins =
      config.pinning === 'off' && config.approval === undefined
        ? undefined
        : await family.pinStore({ listen: options.listen, onError: options.onStoreError });
    if (pins !== undefined && options.onAudit !== undefined) {
      pins = withAuditFeed(pins, options.onAudit);
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  let search: OpenSearch | undefined;
  if (options.search === true) {
    try {
      const { openSearch } = await import('./open-search.js');
      search = await openSearch(config.search, family, options.onSearchError ?? ignore);
    } catch (error) {
      await store.close();
      await pins?.close();
      throw error;
    }
  }
  const makeBuiltins = () =>
    builtinTools(config.builtinWorkers === undefined ? {} : { pool: config.builtinWorkers });
  let builtins = config.builtins ? makeBuiltins() : undefined;
  let builtinsOn = config.builtins;
  // Loaded here, not at the top: `import('@toolplane/cli')` for its config helpers stays light.
  // A CLI runs on Node, where code generation is allowed, and a gateway it serves validates
  // every call: compiled schemas validate many times faster than the default's.
  const validator =
    options.validator === 'default'
      ? undefined
      : (await import('@toolplane/validator-ajv')).createAjvValidator();
  const toolkit = createToolkit({
    ...(builtins === undefined ? {} : { tools: builtins }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    prompts,
    store,
    ...(validator === undefined ? {} : { validator }),
    // The configuration's secrets (substituted variables, headers, tokens) never leave in clear.
    secrets: config.secrets,
    connectorDefaults: {
      clientInfo: { name: 'toolplane', version: VERSION },
      ...(options.lists === undefined ? {} : { lists: options.lists }),
      ...(config.pingIntervalMs === 0 ? {} : { pingIntervalMs: config.pingIntervalMs }),
    },
    sessionConnections: config.sessionConnections,
    ...(search?.searcher === undefined ? {} : { searcher: search.searcher }),
    ...(config.approval === undefined
      ? {}
      : {
          approval:
            pins === undefined
              ? config.approval
              : { ...config.approval, onDecision: auditApprovals(pins) },
        }),
    ...(options.middleware === undefined ? {} : { middleware: options.middleware }),
    ...(options.observers === undefined ? {} : { observers: options.observers }),
    ...(pins === undefined
      ? {}
      : {
          pinning: {
            mode: config.pinning,
            store: pins,
            who: 'gateway',
            ...(options.pinLogger === undefined ? {} : { logger: options.pinLogger }),
          },
        }),
  });
  const unsubscribe = options.onEvent === undefined ? undefined : toolkit.onEvent(options.onEvent);
  const wanted = options.connectors ?? 'all';
  const started = config.connectors.filter(
    (c) => wanted !== 'none' && (wanted === 'all' || wanted.includes(c.namespace)),
  );
  // Protected servers' tokens, sealed next to the user store (`toolplane auth login`).
  let credentials: OpenCredentials | undefined;
  const credentialsOptions = {
    family,
    ...(signal === undefined ? {} : { signal }),
    ...(options.env === undefined ? {} : { env: options.env }),
  };
  const addServer = async (connector: ConnectorConfig): Promise<string> => {
    let source = connector.source;
    if (typeof source === 'object' && 'command' in source) {
      source = {
        ...source,
        ...(options.prestarted === undefined ? {} : { prestarted: options.prestarted }),
        ...(options.closing === undefined ? {} : { closing: options.closing }),
      };
    }
    if (connector.auth !== undefined && typeof source === 'object' && 'url' in source) {
      const { openCredentials, connectorOAuth } = await import('./oauth-clients.js');
      credentials ??= await openCredentials(config.store, credentialsOptions);
      source = {
        ...source,
        oauth: connectorOAuth(connector, credentials.store, {
          ...(options.onUnsavedCredentials === undefined
            ? {}
            : { onUnsaved: options.onUnsavedCredentials }),
        }),
      };
    }
    return toolkit.addConnector(source, {
      namespace: connector.namespace,
      connection: connector.connection,
      era: connector.era,
      ...(connector.startTimeoutMs === undefined
        ? {}
        : { startTimeoutMs: connector.startTimeoutMs }),
    });
  };
  try {
    for (const connector of started) await addServer(connector);
  } catch (error) {
    await store.close();
    await search?.close();
    await pins?.close();
    throw error;
  }
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  const start = (): void => {
    if (stop.signal.aborted) return;
    running ??= toolkit.run({ signal: stop.signal });
  };
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      stop.abort();
      await (running ?? toolkit.close());
      unsubscribe?.();
      await store.close();
      await search?.close();
      await pins?.close();
      await credentials?.close();
      await builtins?.close();
    })());
  const setBuiltins = (on: boolean): void => {
    if (on === builtinsOn) return;
    builtinsOn = on;
    if (on) {
      builtins ??= makeBuiltins();
      for (const tool of builtins) toolkit.addTool(tool);
    } else {
      for (const tool of builtins ?? []) toolkit.removeBuiltin(tool.tool.name);
    }
  };
  if (options.start !== false) start();
  if (options.wait !== false && running !== undefined) {
    try {
      await toolkit.ready(signal === undefined ? {} : { signal });
    } catch (error) {
      await close();
      throw error;
    }
  }
  const warmSearch = (warmOptions?: { readonly signal?: AbortSignal }): Promise<void> =>
    search?.warm(warmOptions) ?? Promise.resolve();
  return { toolkit, store, pins, start, warmSearch, close, addServer, setBuiltins };
}

/**
 * Opens the store a config names: a SQLite file (the default), PostgreSQL, or memory.
 *
 * @throws {ToolError} `store_error` when it cannot be opened.
 */
export function openStore(config: StoreConfig, signal?: AbortSignal): Promise<Store> {
  return storeFamily(config).userStore({ signal });
}

/**
 * Opens the pin store (pins, changes, audit log) beside the store a config names: the same
 * SQLite file or PostgreSQL schema, or memory. `listen: false` (a one-shot command) holds no
 * listening connection.
 *
 * @throws {ToolError} `store_error` when it cannot be opened.
 */
export function openPinStore(
  config: StoreConfig,
  options: { readonly listen?: boolean; readonly signal?: AbortSignal | undefined } = {},
): Promise<PinStore> {
  return storeFamily(config).pinStore({ listen: options.listen });
}
