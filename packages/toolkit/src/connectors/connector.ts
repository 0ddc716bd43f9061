import type { Client } from '@modelcontextprotocol/client';
import { NAMESPACE_PATTERN, ToolError } from '@toolplane/toolmodel';
import {
  checkEra,
  type ConnectorEra,
  type ConnectorServerInfo,
  type SpokenEra,
} from './connector-era.js';
import { checkConnectorOptions } from './connector-options.js';
import { httpTarget, isStdio } from './connector-sources.js';
import type {
  ConnectorLists,
  ConnectorOptions,
  ConnectorSource,
  ConnectorState,
  ToolkitConnector,
} from './connector-types.js';
import { ConnectionLoop } from './connection-loop.js';
import { mirroredLists } from './connector-lists.js';
import { inferNamespace } from './namespace.js';

export { requestScopedFetch } from './transport/scoped-fetch.js';
export type { RequestScopedFetchOptions } from './transport/scoped-fetch.js';
export { CALLER_META_KEY } from './connector-types.js';
export type { ConnectorEra, ConnectorServerInfo, SpokenEra } from './connector-era.js';
export type {
  ConnectorClientLike,
  ConnectorEvent,
  ConnectorFactory,
  ConnectorListKind,
  ConnectorLists,
  ConnectorOptions,
  ConnectorSource,
  ConnectorState,
  HttpSource,
  OAuthCredentialWatch,
  RootsRequestContext,
  StdioSource,
  ToolkitConnector,
  UpstreamRequest,
  UpstreamRequestContext,
  UpstreamRequestHandler,
} from './connector-types.js';

/**
 * One upstream MCP server: it connects (spawning stdio servers), caches the server's lists,
 * follows `list_changed` notifications, and reconnects with capped, fully-jittered exponential
 * backoff whenever the connection is lost, for as long as it is not closed.
 *
 * Over Streamable HTTP, a response stream that ends or breaks before its answer is resumed from
 * its last event ID (after the server's `retry` delay) when the server gave one; a request whose
 * answer can no longer arrive (no event ID, a resumption refused or ended short) fails at once
 * with an MCP `ConnectionClosed` error instead of waiting out its timeout.
 *
 * Create one with {@link createConnector}; {@link inferNamespace} names it when no namespace is given.
 */
export class Connector implements ToolkitConnector {
  readonly namespace: string;
  readonly source: ConnectorSource;
  // The connection itself, and the loop that keeps it; this class holds the controls.
  readonly #loop: ConnectionLoop;

  /**
   * @throws {ToolError} `invalid_config` for an empty command, a URL that is not http(s), a
   * namespace that breaks the namespace rule, an unknown option, an `era` other than `auto`,
   * `2025` or `2026`, a duration that is not above 0 (0 where it turns something off) or is past
   * what a timer keeps, a `maxMessageBytes` that is not a positive integer, or `lists` naming a
   * list servers do not offer.
   */
  constructor(source: ConnectorSource, options: ConnectorOptions = {}) {
    checkConnectorOptions(options, 'createConnector');
    const era = checkEra(options.era);
    const lists = mirroredLists(options.lists);
    if (isStdio(source)) {
      if (typeof source.command !== 'string' || source.command.trim() === '') {
        throw new ToolError('invalid_config', 'a stdio MCP server needs a non-empty "command"');
      }
    } else {
      httpTarget(source); // validates the URL now rather than on every reconnect
    }
    const namespace = options.namespace ?? inferNamespace(source);
    if (!NAMESPACE_PATTERN.test(namespace)) {
      throw new ToolError(
        'invalid_config',
        `connector namespace ${JSON.stringify(namespace)} must be 1-64 characters of A-Z a-z 0-9 _ -`,
      );
    }
    this.source = source;
    this.namespace = namespace;
    this.#loop = new ConnectionLoop({ namespace, source, era, options, lists });
  }

  /** The current lifecycle state. */
  get state(): ConnectorState {
    return this.#loop.state;
  }

  /** The connected MCP client, or `undefined` while the server is not connected. */
  get client(): Client | undefined {
    return this.#loop.client;
  }

  /** The process ID of a stdio server's current child, while it runs. */
  get pid(): number | undefined {
    return this.#loop.pid;
  }

  /** Why the last connection attempt failed or the last connection ended, if it did. */
  get lastError(): Error | undefined {
    return this.#loop.lastError;
  }

  /** The era setting: `auto` negotiates, `2025` and `2026` pin one (see {@link ConnectorOptions.era}). */
  get eraSetting(): ConnectorEra {
    return this.#loop.era;
  }

  /** The era the current connection speaks; `undefined` while not connected. */
  get era(): SpokenEra | undefined {
    return this.#loop.server?.era;
  }

  /** What the server said about itself on the current connection; `undefined` while not connected. */
  get server(): ConnectorServerInfo | undefined {
    return this.#loop.server;
  }

  /** The server's cached lists (empty while it is not connected). */
  get lists(): ConnectorLists {
    return this.#loop.lists.current;
  }

  /** See {@link ToolkitConnector.toolsSettled}. */
  toolsSettled(): Promise<void> {
    return this.#loop.lists.settled('tools');
  }

  /** Starts connecting in the background; reconnects until {@link Connector.close}. Idempotent. */
  start(): void {
    this.#loop.start();
  }

  /**
   * Resolves once the connector is connected with its lists loaded.
   *
   * @throws {ToolError} `connector_unavailable` when the connector is closed, or the first attempt
   * after the call fails; `cancelled` when `signal` aborts.
   */
  async ready(options: { signal?: AbortSignal } = {}): Promise<void> {
    const loop = this.#loop;
    if (!loop.running) {
      if (loop.state === 'auth_required') throw this.unavailable();
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" was not started`);
    }
    for (;;) {
      if (loop.state === 'connected') return;
      if (loop.isClosed()) throw this.unavailable();
      const seen = loop.state;
      await loop.nextState(options.signal);
      // Read through a function: the awaits above change the state behind the narrowing.
      const now = this.#currentState();
      if (now === 'auth_required') throw this.unavailable();
      if (now === 'failed' && seen !== 'failed') throw this.unavailable();
    }
  }

  /** The error a call gets while this connector is not connected. */
  unavailable(): ToolError {
    const { state, lastError } = this.#loop;
    const why = lastError === undefined ? state : `${state}: ${lastError.message}`;
    return new ToolError(
      state === 'auth_required' ? 'unauthorized' : 'connector_unavailable',
      `MCP server "${this.namespace}" is not connected (${why})`,
      {
        cause: lastError,
      },
    );
  }

  /**
   * Reconnects at once when the capabilities {@link ConnectorOptions.upstreamRequests} would
   * advertise now differ from what the current connection advertised (a client states them only
   * when it connects). Calls in flight on the old connection fail; resolves once reconnected,
   * or at once when nothing changed or the connector is not connected (a connection being made
   * when the handler changes is redone as soon as it is made, before it is used).
   */
  async renegotiate(options: { signal?: AbortSignal } = {}): Promise<void> {
    const loop = this.#loop;
    const client = loop.client;
    // A connection in the making checks the handler once made, and is redone if it changed.
    if (client === undefined || loop.state !== 'connected') return;
    if (!loop.upstreamChanged()) return;
    await loop.redo(client);
    while (loop.client === client) await loop.nextState(options.signal);
    await this.ready(options);
  }

  /**
   * Tells the server its client's roots changed (`notifications/roots/list_changed`), when the
   * handler advertised roots; its next `roots/list` outside a call is answered for `caller`.
   * Told while the connection is being made again, it reaches the new one: `caller` still
   * answers the new server's first `roots/list`, and the change is announced once connected.
   */
  rootsChanged(caller?: string): void {
    this.#loop.rootsChanged(caller);
  }

  /**
   * Drops the connection, if there is one, and connects again at once, cutting short a backoff
   * wait (an operator's "reconnect" button); starts a connector that waits for a login. Calls in
   * flight on the old connection fail. The outcome arrives as `state_change` events.
   *
   * @throws {ToolError} `connector_unavailable` when the connector is closed.
   */
  reconnect(): void {
    const loop = this.#loop;
    if (loop.isClosed())
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" is closed`);
    if (!loop.running) {
      loop.start();
      return;
    }
    loop.wake();
    const client = loop.client;
    // The loop sees the close and connects again without a backoff wait.
    if (client !== undefined && loop.state === 'connected') void loop.redo(client);
  }

  /**
   * Resolves once no tool call is in flight on the current connection (at once when none is or
   * it is not connected), or when `signal` aborts. It does not stop new calls: a registry drains
   * a connector it has already taken out of service, then closes it.
   */
  async drain(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#loop.client === undefined) return;
    await this.#loop.calls?.idle(options.signal);
  }

  /** Stops reconnecting, closes the connection (ending a stdio child) and waits for it. Idempotent. */
  close(): Promise<void> {
    return this.#loop.close();
  }

  #currentState(): ConnectorState {
    return this.#loop.state;
  }
}

/** Creates a {@link Connector} for an upstream MCP server; call `start()` to connect. */
export function createConnector(
  source: ConnectorSource,
  options: ConnectorOptions = {},
): Connector {
  return new Connector(source, options);
}
