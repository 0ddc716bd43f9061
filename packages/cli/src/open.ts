import { builtinTools } from '@toolplane/builtins';
import {
  createMemoryPinStore,
  createMemoryStore,
  createToolkit,
  loadPrompts,
  type Logger,
  type PinStore,
  type Store,
  type Toolkit,
  type ToolkitEvent,
} from '@toolplane/toolkit';
import type { CliConfig, StoreConfig } from './config.js';
import type { OpenCredentials } from './oauth-clients.js';
import { VERSION } from './version.js';

/** A toolkit built from a {@link CliConfig}, with the store it reads; see {@link openToolkit}. */
export interface OpenToolkit {
  readonly toolkit: Toolkit;
  readonly store: Store;
  /**
   * Starts the connectors, when {@link OpenToolkitOptions.start} was false; later calls do
   * nothing.
   */
  start(): void;
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
  readonly signal?: AbortSignal;
  /** Where `TOOLPLANE_TOKEN_KEY` is read for protected servers' tokens; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Hears pinning's log lines (a tool pinned, a tool changed); default none. */
  readonly pinLogger?: Logger;
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
  const store = await openStore(config.store, signal);
  let pins: PinStore | undefined;
  try {
    pins = config.pinning === 'off' ? undefined : await openPinStore(config.store, { signal });
  } catch (error) {
    await store.close();
    throw error;
  }
  const builtins = config.builtins
    ? builtinTools(config.builtinWorkers === undefined ? {} : { pool: config.builtinWorkers })
    : undefined;
  // Loaded here, not at the top: `import('@toolplane/cli')` for its config helpers stays light.
  const { createAjvValidator } = await import('@toolplane/validator-ajv');
  const toolkit = createToolkit({
    ...(builtins === undefined ? {} : { tools: builtins }),
    prompts,
    store,
    // A CLI runs on Node, where code generation is allowed, and a gateway it serves validates
    // every call: compiled schemas validate many times faster than the default's.
    validator: createAjvValidator(),
    // The configuration's secrets (substituted variables, headers, tokens) never leave in clear.
    secrets: config.secrets,
    connectorDefaults: {
      clientInfo: { name: 'toolplane', version: VERSION },
      ...(config.pingIntervalMs === 0 ? {} : { pingIntervalMs: config.pingIntervalMs }),
    },
    sessionConnections: config.sessionConnections,
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
  try {
    if (started.some((c) => c.auth !== undefined)) {
      const { openCredentials } = await import('./oauth-clients.js');
      credentials = await openCredentials(config.store, {
        ...(signal === undefined ? {} : { signal }),
        ...(options.env === undefined ? {} : { env: options.env }),
      });
    }
  } catch (error) {
    await store.close();
    await pins?.close();
    throw error;
  }
  const { connectorOAuth } =
    credentials === undefined ? { connectorOAuth: undefined } : await import('./oauth-clients.js');
  for (const connector of started) {
    const oauth = credentials && connectorOAuth?.(connector, credentials.store);
    const source =
      oauth === undefined || typeof connector.source !== 'object' || !('url' in connector.source)
        ? connector.source
        : { ...connector.source, oauth };
    toolkit.addConnector(source, {
      namespace: connector.namespace,
      connection: connector.connection,
      era: connector.era,
    });
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
      await pins?.close();
      await credentials?.close();
      await builtins?.close();
    })());
  if (options.start !== false) start();
  if (options.wait !== false && running !== undefined) {
    try {
      await toolkit.ready(signal === undefined ? {} : { signal });
    } catch (error) {
      await close();
      throw error;
    }
  }
  return { toolkit, store, start, close };
}

/**
 * Opens the store a config names: a SQLite file (the default), PostgreSQL, or memory.
 *
 * @throws {ToolError} `store_error` when it cannot be opened.
 */
export async function openStore(config: StoreConfig, signal?: AbortSignal): Promise<Store> {
  // Each store's driver loads only when the config names it: `store: memory` never loads a
  // native module, and pg loads only for PostgreSQL.
  switch (config.kind) {
    case 'memory':
      return createMemoryStore();
    case 'sqlite': {
      const { createSqliteStore } = await import('@toolplane/store-sqlite');
      return createSqliteStore({ path: config.path });
    }
    case 'postgres': {
      const { createPostgresStore } = await import('@toolplane/store-postgres');
      return createPostgresStore({
        connectionString: config.connectionString,
        ...(config.schema === undefined ? {} : { schema: config.schema }),
        ...(signal === undefined ? {} : { signal }),
      });
    }
  }
}

/**
 * Opens the pin store (pins, changes, audit log) beside the store a config names: the same
 * SQLite file or PostgreSQL schema, or memory. `listen: false` (a one-shot command) holds no
 * listening connection.
 *
 * @throws {ToolError} `store_error` when it cannot be opened.
 */
export async function openPinStore(
  config: StoreConfig,
  options: { readonly listen?: boolean; readonly signal?: AbortSignal | undefined } = {},
): Promise<PinStore> {
  switch (config.kind) {
    case 'memory':
      return createMemoryPinStore();
    case 'sqlite': {
      const { createSqlitePinStore } = await import('@toolplane/store-sqlite');
      return createSqlitePinStore({ path: config.path });
    }
    case 'postgres': {
      const { createPostgresPinStore } = await import('@toolplane/store-postgres');
      return createPostgresPinStore({
        connectionString: config.connectionString,
        ...(config.schema === undefined ? {} : { schema: config.schema }),
        listen: options.listen !== false,
      });
    }
  }
}
