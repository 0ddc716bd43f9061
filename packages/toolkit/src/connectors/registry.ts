import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { ToolIndex } from '@toolplane/toolindex';
import { NAMESPACE_PATTERN, raceAbort, ToolError } from '@toolplane/toolmodel';
import {
  createConnector,
  type ConnectorClientLike,
  type ConnectorEvent,
  type ConnectorFactory,
  type ConnectorOptions,
  type ConnectorSource,
  type ToolkitConnector,
  type UpstreamRequestHandler,
} from './connector.js';
import {
  checkAddConnectorOptions,
  checkConnectorDefaults,
  checkRemoveConnectorOptions,
} from './toolkit-connector-options.js';
import { sourceKeys } from './connector-sources.js';
import { inferNamespace } from './namespace.js';
import type { Secrets } from '../secrets.js';
import { SessionConnections, type SessionConnectionLimits } from './session-connections.js';
import type { Logger } from '../session.js';
import { connectorSource, syncTools } from './source.js';
import type { Source } from '../toolkit/sources.js';
import {
  BUILTIN_NAMESPACE,
  USER_NAMESPACE,
  type AddConnectorOptions,
  type ConnectionMode,
  type RemoveConnectorOptions,
  type ConnectorStatus,
  type ListError,
  type ToolkitEvent,
  type ToolkitResourceTemplate,
} from '../toolkit/types.js';

interface ConnectorEntry {
  /** The shared connection: every call's, or for a per-session server, the lists'. */
  readonly connector: ToolkitConnector;
  readonly source: ConnectorSource;
  readonly perSession: boolean;
  readonly options: AddConnectorOptions;
  /** Settles when the first connection attempt after start has. */
  firstAttempt: Promise<void> | undefined;
}

/** What a toolkit's options set for every connector. */
type ConnectorDefaults = Omit<ConnectorOptions, 'namespace' | 'onEvent' | 'upstreamRequests'>;

const RESERVED = new Set([BUILTIN_NAMESPACE, USER_NAMESPACE]);

/**
 * A toolkit's upstream MCP servers, one namespace each: their connectors, whose tools are mirrored
 * into the index while they are connected.
 */
export class Connectors {
  readonly #index: ToolIndex;
  readonly #logger: Logger;
  readonly #secrets: Secrets;
  readonly #emit: (event: ToolkitEvent) => void;
  readonly #defaults: ConnectorDefaults;
  readonly #answerer: () => UpstreamRequestHandler | undefined;
  readonly #factory: ConnectorFactory | undefined;
  readonly #connectors = new Map<string, ConnectorEntry>();
  readonly #sessions: SessionConnections;
  /** Which listed tools are served (pinning); all when unset. */
  toolFilter: (<T extends McpTool>(namespace: string, tools: readonly T[]) => T[]) | undefined;
  // The client session of the call or read in progress, for per-session servers.
  readonly #scope = new AsyncLocalStorage<string>();

  constructor(parts: {
    index: ToolIndex;
    logger: Logger;
    secrets: Secrets;
    emit: (event: ToolkitEvent) => void;
    defaults: ConnectorDefaults | undefined;
    /** What connectors advertise and ask (read at every connect). */
    answerer: () => UpstreamRequestHandler | undefined;
    sessionLimits: SessionConnectionLimits | undefined;
    /** Builds connectors for sources it takes; the built-in MCP connector for the others. */
    factory?: ConnectorFactory | undefined;
  }) {
    checkConnectorDefaults(parts.defaults);
    this.#factory = parts.factory;
    this.#index = parts.index;
    this.#logger = parts.logger;
    this.#secrets = parts.secrets;
    this.#emit = parts.emit;
    this.#defaults = parts.defaults ?? {};
    this.#answerer = parts.answerer;
    this.#sessions = new SessionConnections(parts.sessionLimits ?? {}, (namespace, session) =>
      this.#sessionConnector(namespace, session),
    );
  }

  /** Registers a connector, started at once when `start` is set; returns its namespace. */
  add(source: ConnectorSource, options: AddConnectorOptions, start: boolean): string {
    // Checked here too: configurations reach this from JSON and plain JavaScript.
    checkAddConnectorOptions(options);
    const connection: unknown = options.connection ?? 'shared';
    if (connection !== 'shared' && connection !== 'per-session') {
      throw new ToolError(
        'invalid_config',
        `connection must be "shared" or "per-session", not ${JSON.stringify(connection)}`,
      );
    }
    const namespace = this.#claimNamespace(source, options.namespace);
    this.#secrets.addSource(source);
    const connector: ToolkitConnector = this.#make(source, {
      ...this.#defaults,
      ...(options.era === undefined ? {} : { era: options.era }),
      ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
      ...(options.lists === undefined ? {} : { lists: options.lists }),
      namespace,
      upstreamRequests: this.#answerer,
      onEvent: (event) => {
        this.#onConnectorEvent(connector, event);
      },
    });
    const entry: ConnectorEntry = {
      connector,
      source,
      perSession: connection === 'per-session',
      options,
      firstAttempt: undefined,
    };
    this.#connectors.set(namespace, entry);
    if (start) this.#start(entry);
    return namespace;
  }

  /**
   * Closes and removes the connector named by its namespace, or by the source it was added with
   * (a URL, or a command line); true when there was one.
   *
   * @throws {ToolError} `conflict` when a source names more than one connector, `invalid_config`
   * for options it does not take or a drain bound a timer cannot keep.
   */
  async remove(
    id: string | ConnectorSource,
    options: RemoveConnectorOptions = {},
  ): Promise<boolean> {
    checkRemoveConnectorOptions(options);
    const namespace = this.#namespaceOf(id);
    const entry = namespace === undefined ? undefined : this.#connectors.get(namespace);
    if (namespace === undefined || entry === undefined) return false;
    // Out of service at once, before any wait: the namespace is free for a replacement, and
    // no new call reaches these connections.
    this.#connectors.delete(namespace);
    this.#index.removeNamespace(namespace);
    const connectors = [entry.connector, ...this.#sessions.detach(namespace)];
    const drainMs = options.drainMs ?? 0;
    if (drainMs > 0) {
      // Calls already sent finish on the connection they started on, within the bound.
      const bound = AbortSignal.timeout(drainMs);
      await Promise.all(
        connectors.map((connector) => connector.drain?.({ signal: bound }) ?? Promise.resolve()),
      );
    }
    await Promise.all(connectors.map((connector) => connector.close()));
    return true;
  }

  /** The namespace `id` names: a namespace itself, or the source a connector was added with. */
  #namespaceOf(id: string | ConnectorSource): string | undefined {
    if (typeof id === 'string' && this.#connectors.has(id)) return id;
    // The most exact name first: a whole command line before the command alone.
    for (const key of sourceKeys(id)) {
      const matches = [...this.#connectors].filter(([, entry]) =>
        sourceKeys(entry.source).includes(key),
      );
      if (matches.length === 1) return matches[0]?.[0];
      if (matches.length > 1) {
        throw new ToolError(
          'conflict',
          `${JSON.stringify(key)} names ${matches.length} connectors (${matches.map(([namespace]) => namespace).join(', ')}); remove one by its namespace`,
        );
      }
    }
    return undefined;
  }

  statuses(): ConnectorStatus[] {
    return [...this.#connectors.values()].map(({ connector, perSession }) => {
      const { namespace, state, pid, lastError, era } = connector;
      return {
        namespace,
        state,
        ...(pid === undefined ? {} : { pid }),
        ...(era === undefined ? {} : { era }),
        ...(perSession ? { sessionConnections: this.#sessions.count(namespace) } : {}),
        ...(state === 'connected' || lastError === undefined
          ? {}
          : { error: this.#secrets.redact(lastError.message) }),
      };
    });
  }

  /** The connector for `source`: the factory's, else the built-in MCP connector. */
  #make(
    source: ConnectorSource,
    options: ConnectorOptions & { readonly namespace: string },
  ): ToolkitConnector {
    return this.#factory?.(source, options) ?? createConnector(source, options);
  }

  get(namespace: string): ToolkitConnector | undefined {
    return this.#connectors.get(namespace)?.connector;
  }

  /** Every connector, in registration order. */
  all(): ToolkitConnector[] {
    return [...this.#connectors.values()].map(({ connector }) => connector);
  }

  async renegotiate(options: { signal?: AbortSignal }): Promise<void> {
    await Promise.all(
      this.all().map(async (connector) => {
        await connector.renegotiate?.(options);
      }),
    );
  }

  startAll(): void {
    for (const entry of this.#connectors.values()) this.#start(entry);
  }

  async ready(options: { signal?: AbortSignal }): Promise<void> {
    const attempts = [...this.#connectors.values()].flatMap((entry) => entry.firstAttempt ?? []);
    const all = Promise.all(attempts);
    const { signal } = options;
    if (signal === undefined) {
      await all;
      return;
    }
    const cancelled = (): ToolError =>
      new ToolError('cancelled', 'waiting for the connectors was cancelled', {
        cause: signal.reason,
      });
    if (signal.aborted) throw cancelled();
    // A long-lived signal must not collect a listener per wait, nor one per concurrent wait.
    await raceAbort(all, signal, { error: cancelled });
  }

  async close(): Promise<void> {
    await Promise.all([
      ...this.all().map((connector) => connector.close()),
      this.#sessions.close(),
    ]);
  }

  /**
   * Runs `fn` as part of `session` (when given): a per-session server `namespace` serves it on
   * the session's own connection, made on first use and held busy meanwhile.
   */
  async inSession<T>(
    namespace: string,
    session: string | undefined,
    fn: () => Promise<T>,
  ): Promise<T> {
    // A call made during another (a builtin's, a prompt's) belongs to that one's session.
    const key = session ?? this.#scope.getStore();
    if (key === undefined) return fn();
    if (this.#connectors.get(namespace)?.perSession !== true) return this.#scope.run(key, fn);
    const release = this.#sessions.hold(namespace, key);
    try {
      return await this.#scope.run(key, fn);
    } finally {
      release();
    }
  }

  /** How `namespace`'s server is connected, when there is such a server. */
  connectionOf(namespace: string): ConnectionMode | undefined {
    const entry = this.#connectors.get(namespace);
    if (entry === undefined) return undefined;
    return entry.perSession ? 'per-session' : 'shared';
  }

  /**
   * Subscribes to `uri` on `namespace`'s server: on `session`'s own connection to a per-session
   * server (made if need be), else on the shared one. False when the server has no
   * subscriptions (or is not connected).
   */
  async subscribe(namespace: string, uri: string, session: string | undefined): Promise<boolean> {
    const client = await this.#subscriptionClient(namespace, session, true);
    if (client?.getServerCapabilities()?.resources?.subscribe !== true) return false;
    if (client.subscribeResource === undefined) return false;
    await client.subscribeResource({ uri });
    return true;
  }

  /** Undoes {@link subscribe}; a session connection already closed is not made again for it. */
  async unsubscribe(namespace: string, uri: string, session: string | undefined): Promise<void> {
    const client = await this.#subscriptionClient(namespace, session, false);
    if (client?.getServerCapabilities()?.resources?.subscribe !== true) return;
    await client.unsubscribeResource?.({ uri });
  }

  async #subscriptionClient(
    namespace: string,
    session: string | undefined,
    make: boolean,
  ): Promise<ConnectorClientLike | undefined> {
    const entry = this.#connectors.get(namespace);
    if (entry === undefined) return undefined;
    if (!entry.perSession || session === undefined) return entry.connector.client;
    if (!make && this.#sessions.get(namespace, session) === undefined) return undefined;
    const release = this.#sessions.hold(namespace, session);
    try {
      return await this.#sessions.client(namespace, session);
    } finally {
      release();
    }
  }

  /** Closes the connections `session` has of its own. */
  endSession(session: string): Promise<void> {
    return this.#sessions.end(session);
  }

  /**
   * Tells servers with roots that they changed: every shared connection, and the per-session
   * connections of the session `caller` names.
   */
  rootsChanged(caller: string | undefined): void {
    const own = caller === undefined ? [] : this.#sessions.of(caller);
    for (const connector of [...this.all(), ...own]) connector.rootsChanged?.(caller);
  }

  /** The resource templates of connected connectors, in registration order. */
  resourceTemplates(): ToolkitResourceTemplate[] {
    const templates: ToolkitResourceTemplate[] = [];
    for (const connector of this.all()) {
      if (connector.state !== 'connected') continue;
      for (const template of connector.lists.resourceTemplates) {
        templates.push({ namespace: connector.namespace, name: template.name, template });
      }
    }
    return templates;
  }

  /** The connectors that are down, as list errors (only `namespace`'s when given). */
  listErrors(namespace: string | undefined): ListError[] {
    const errors: ListError[] = [];
    for (const connector of this.all()) {
      if (
        connector.state !== 'connected' &&
        (namespace === undefined || namespace === connector.namespace)
      ) {
        errors.push({ namespace: connector.namespace, message: connector.unavailable().message });
      }
    }
    return errors;
  }

  /** The connected connectors as lookup and list read them, in registration order. */
  sources(): Source[] {
    return this.all().flatMap((connector) =>
      connector.state === 'connected' ? [this.#source(connector)] : [],
    );
  }

  /**
   * The MCP client of a connected connector, for the runner's MCP executor.
   *
   * @throws {ToolError} `connector_unavailable` when there is no such connector or it is down.
   */
  clientOf(serverName: string) {
    const entry = this.#connectors.get(serverName);
    if (entry === undefined) {
      throw new ToolError(
        'connector_unavailable',
        `no connector "${serverName}" (connectors: ${[...this.#connectors.keys()].join(', ') || 'none'})`,
      );
    }
    const session = entry.perSession ? this.#scope.getStore() : undefined;
    if (session !== undefined && this.#sessions.get(serverName, session) !== undefined) {
      return this.#sessions.client(serverName, session);
    }
    const client = entry.connector.client;
    if (client === undefined) throw entry.connector.unavailable();
    return client;
  }

  /** A new connection of `session`'s own to the per-session server `namespace`. */
  #sessionConnector(namespace: string, session: string): ToolkitConnector {
    const entry = this.#connectors.get(namespace);
    if (entry === undefined) throw new ToolError('not_found', `no connector "${namespace}"`);
    return this.#make(entry.source, {
      ...this.#defaults,
      ...(entry.options.era === undefined ? {} : { era: entry.options.era }),
      ...(entry.options.startTimeoutMs === undefined
        ? {}
        : { startTimeoutMs: entry.options.startTimeoutMs }),
      ...(entry.options.lists === undefined ? {} : { lists: entry.options.lists }),
      namespace,
      upstreamRequests: this.#answerer,
      onEvent: (event) => {
        // Lists come from the shared connection; what is meant for the session goes to it alone.
        if (event.type === 'resource_updated' || event.type === 'log_message') {
          this.#emit({ ...event, session });
        }
      },
    });
  }

  #source(connector: ToolkitConnector): Source {
    const { namespace } = connector;
    return connectorSource(connector, {
      index: this.#index,
      perSession: () => this.#connectors.get(namespace)?.perSession === true,
      clientOf: () => this.clientOf(namespace),
      inSession: (session, fn) => this.inSession(namespace, session, fn),
    });
  }

  /**
   * Mirrors a connected connector's tools into the index again (its pins changed) and tells
   * listeners its tool list changed.
   */
  resync(namespace: string): void {
    const connector = this.#connectors.get(namespace)?.connector;
    if (connector?.state !== 'connected') return;
    syncTools(this.#index, this.#logger, connector, this.toolFilter);
    this.#emit({ type: 'tool_list_changed', namespace });
  }

  #start(entry: ConnectorEntry): void {
    entry.connector.start();
    entry.firstAttempt = entry.connector.ready().catch(() => undefined);
  }

  #claimNamespace(source: ConnectorSource, wanted: string | undefined): string {
    if (wanted !== undefined) {
      if (!NAMESPACE_PATTERN.test(wanted)) {
        throw new ToolError(
          'invalid_config',
          `namespace ${JSON.stringify(wanted)} must be 1-64 characters of A-Z a-z 0-9 _ -`,
        );
      }
      if (RESERVED.has(wanted)) {
        throw new ToolError(
          'invalid_config',
          `namespace "${wanted}" is reserved; choose another for this connector`,
        );
      }
      if (this.#connectors.has(wanted)) {
        throw new ToolError(
          'conflict',
          `namespace "${wanted}" is already used by another connector; choose another`,
        );
      }
      return wanted;
    }
    const base = inferNamespace(source);
    for (let n = 1; ; n++) {
      const suffix = n === 1 ? '' : `-${n}`;
      const candidate = `${base.slice(0, 64 - suffix.length)}${suffix}`;
      if (!RESERVED.has(candidate) && !this.#connectors.has(candidate)) return candidate;
    }
  }

  #onConnectorEvent(connector: ToolkitConnector, event: ConnectorEvent): void {
    const { namespace } = connector;
    // A removed connector's last events must not resurrect its tools.
    if (this.#connectors.get(namespace)?.connector !== connector) {
      this.#emit(event);
      return;
    }
    if (
      event.type === 'tool_list_changed' ||
      (event.type === 'state_change' && event.state === 'connected')
    ) {
      syncTools(this.#index, this.#logger, connector, this.toolFilter);
    } else if (event.type === 'state_change') {
      this.#index.removeNamespace(namespace);
    }
    this.#emit(event);
  }
}
