import type { Client } from '@modelcontextprotocol/client';
import { NAMESPACE_PATTERN, ToolError } from '@toolplane/toolmodel';
import { backoffDelay } from '@toolplane/toolrun';
import { CallTracker, capabilityKey } from './call-tracker.js';
import {
  checkEra,
  DEFAULT_ERA_PROBE_TIMEOUT_MS,
  EraMemory,
  refusedForModern,
  negotiationFor,
  serverInfoOf,
  type ConnectorEra,
  type ConnectorServerInfo,
  type SpokenEra,
} from './connector-era.js';
import { ListCache } from './connector-lists.js';
import { openHttp, openStdio } from './connector-open.js';
import {
  checkMaxMessageBytes,
  closedPromise,
  httpTarget,
  isStdio,
  toError,
} from './connector-sources.js';
import { nextWake, sleep } from './connector-timing.js';
import { DEFAULT_START_TIMEOUT_MS } from './connector-types.js';
import type {
  ConnectorEvent,
  ConnectorLists,
  ConnectorOptions,
  ConnectorSource,
  ConnectorState,
  ToolkitConnector,
} from './connector-types.js';
import { answerUpstream, askForLogs, makeConnectorClient } from './connector-setup.js';
import { ConnectorClient } from './connector-client.js';
import { ResourceSubscriptions } from './connector-listen.js';
import { inferNamespace } from './namespace.js';
import { DEFAULT_AUTH_RECHECK_MS, watchForLogin } from './oauth/login-watch.js';
import { isAuthRequired } from './oauth/stored-provider.js';

export { requestScopedFetch } from './transport/scoped-fetch.js';
export type { RequestScopedFetchOptions } from './transport/scoped-fetch.js';
export { CALLER_META_KEY } from './connector-types.js';
export type { ConnectorEra, ConnectorServerInfo, SpokenEra } from './connector-era.js';
export type {
  ConnectorClientLike,
  ConnectorEvent,
  ConnectorFactory,
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
  #options: ConnectorOptions;
  #state: ConnectorState = 'disconnected';
  #client: Client | undefined;
  #pid: number | undefined;
  // A list it can no longer load ends the connection, whose reconnection reports why.
  readonly #lists = new ListCache((client, error) => {
    if (this.#client === client && isTooLarge(error)) {
      this.#dropCause = error;
      void client.close().catch(() => undefined);
    }
  });
  #lastError: Error | undefined;
  // Why the connection is being closed by us, when it is (a list it can no longer load).
  #dropCause: Error | undefined;
  #loop: Promise<void> | undefined;
  #stopWaiting = new AbortController();
  #stateWaiters = new Set<() => void>();
  // What the current connection advertised, and whether it is being redone to change that.
  #advertised = '';
  // The calls in flight on the current connection, with their callers.
  #calls: CallTracker | undefined;
  // A roots change told while no connection advertised roots (one being made again, whose server
  // may already have asked for roots before whose they were was known): told once one does.
  #rootsUntold = false;
  #renegotiating = false;
  // Aborted by reconnect(): cuts a backoff wait short.
  #wake = new AbortController();
  // Connections whose liveness a ping is checking.
  #checking = new WeakSet<Client>();
  readonly #era: ConnectorEra;
  readonly #memory = new EraMemory();
  // Whether the connection being made went by a remembered era verdict (see EraMemory).
  #byMemory = false;
  #server: ConnectorServerInfo | undefined;
  // Kept across connections: a new connection subscribes (or listens) to them again.
  readonly #resources = new ResourceSubscriptions();
  // Set when the OAuth client found, on a live connection, that a person must log in.
  #authError: Error | undefined;
  // While auth_required: looks for tokens a login elsewhere saved.
  #authRecheck: NodeJS.Timeout | undefined;

  /**
   * @throws {ToolError} `invalid_config` for an empty command, a URL that is not http(s), a
   * namespace that breaks the namespace rule, an `era` other than `auto`, `2025` or `2026`, or a
   * `maxMessageBytes` that is not a positive integer.
   */
  constructor(source: ConnectorSource, options: ConnectorOptions = {}) {
    this.#era = checkEra(options.era);
    checkMaxMessageBytes(options.maxMessageBytes);
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
    this.#options = options;
  }

  /** The current lifecycle state. */
  get state(): ConnectorState {
    return this.#state;
  }

  /** The connected MCP client, or `undefined` while the server is not connected. */
  get client(): Client | undefined {
    return this.#client;
  }

  /** The process ID of a stdio server's current child, while it runs. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** Why the last connection attempt failed or the last connection ended, if it did. */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** The era setting: `auto` negotiates, `2025` and `2026` pin one (see {@link ConnectorOptions.era}). */
  get eraSetting(): ConnectorEra {
    return this.#era;
  }

  /** The era the current connection speaks; `undefined` while not connected. */
  get era(): SpokenEra | undefined {
    return this.#server?.era;
  }

  /** What the server said about itself on the current connection; `undefined` while not connected. */
  get server(): ConnectorServerInfo | undefined {
    return this.#server;
  }

  /** The server's cached lists (empty while it is not connected). */
  get lists(): ConnectorLists {
    return this.#lists.current;
  }

  /** See {@link ToolkitConnector.toolsSettled}. */
  toolsSettled(): Promise<void> {
    return this.#lists.settled('tools');
  }

  // A method, not a field, so that checks after an await are not narrowed away.
  #isClosed(): boolean {
    return this.#stopWaiting.signal.aborted;
  }

  /** Starts connecting in the background; reconnects until {@link Connector.close}. Idempotent. */
  start(): void {
    if (this.#isClosed())
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" is closed`);
    clearInterval(this.#authRecheck);
    this.#authRecheck = undefined;
    this.#loop ??= this.#run();
  }

  /**
   * Resolves once the connector is connected with its lists loaded.
   *
   * @throws {ToolError} `connector_unavailable` when the connector is closed, or the first attempt
   * after the call fails; `cancelled` when `signal` aborts.
   */
  async ready(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#loop === undefined) {
      if (this.#state === 'auth_required') throw this.unavailable();
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" was not started`);
    }
    for (;;) {
      if (this.#state === 'connected') return;
      if (this.#isClosed()) throw this.unavailable();
      const seen = this.#state;
      await this.#nextState(options.signal);
      if (this.#state === 'auth_required') throw this.unavailable();
      if (this.#state === 'failed' && seen !== 'failed') throw this.unavailable();
    }
  }

  /** The error a call gets while this connector is not connected. */
  unavailable(): ToolError {
    const why =
      this.#lastError === undefined ? this.#state : `${this.#state}: ${this.#lastError.message}`;
    return new ToolError(
      this.#state === 'auth_required' ? 'unauthorized' : 'connector_unavailable',
      `MCP server "${this.namespace}" is not connected (${why})`,
      {
        cause: this.#lastError,
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
    const client = this.#client;
    // A connection in the making checks the handler once made, and is redone if it changed.
    if (client === undefined || this.#state !== 'connected') return;
    if (capabilityKey(this.#options.upstreamRequests?.()) === this.#advertised) return;
    this.#renegotiating = true;
    await client.close().catch(() => undefined);
    while (this.#client === client) await this.#nextState(options.signal);
    await this.ready(options);
  }

  /**
   * Tells the server its client's roots changed (`notifications/roots/list_changed`), when the
   * handler advertised roots; its next `roots/list` outside a call is answered for `caller`.
   * Told while the connection is being made again, it reaches the new one: `caller` still
   * answers the new server's first `roots/list`, and the change is announced once connected.
   */
  rootsChanged(caller?: string): void {
    if (this.#calls !== undefined && caller !== undefined) this.#calls.lastCaller = caller;
    const client = this.#client;
    if (client === undefined || !this.#advertised.includes('r')) {
      this.#rootsUntold = true;
      return;
    }
    this.#rootsUntold = false;
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
    client.sendRootsListChanged().catch(() => undefined);
  }

  /**
   * Drops the connection, if there is one, and connects again at once, cutting short a backoff
   * wait (an operator's "reconnect" button); starts a connector that waits for a login. Calls in
   * flight on the old connection fail. The outcome arrives as `state_change` events.
   *
   * @throws {ToolError} `connector_unavailable` when the connector is closed.
   */
  reconnect(): void {
    if (this.#isClosed())
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" is closed`);
    if (this.#loop === undefined) {
      this.start();
      return;
    }
    const wake = this.#wake;
    this.#wake = new AbortController();
    wake.abort();
    const client = this.#client;
    if (client !== undefined && this.#state === 'connected') {
      // The loop sees the close and connects again without a backoff wait.
      this.#renegotiating = true;
      void client.close().catch(() => undefined);
    }
  }

  /**
   * Resolves once no tool call is in flight on the current connection (at once when none is or
   * it is not connected), or when `signal` aborts. It does not stop new calls: a registry drains
   * a connector it has already taken out of service, then closes it.
   */
  async drain(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#client === undefined) return;
    await this.#calls?.idle(options.signal);
  }

  /** Stops reconnecting, closes the connection (ending a stdio child) and waits for it. Idempotent. */
  async close(): Promise<void> {
    this.#stopWaiting.abort();
    clearInterval(this.#authRecheck);
    await this.#client?.close().catch(() => undefined);
    await this.#loop;
    this.#setState('disconnected');
  }

  async #run(): Promise<void> {
    let attempt = 0;
    while (!this.#isClosed()) {
      this.#setState('connecting');
      let client: ConnectorClient | undefined;
      let connected = false;
      let outdated = false;
      try {
        client = await this.#connect();
        // A completed handshake resets the backoff, whatever happens next.
        attempt = 0;
        const closed = closedPromise(client);
        await this.#lists.loadAll(client);
        // The handler changed while this connection was made (a gateway served while its
        // upstreams were still connecting): the server was told other capabilities than the
        // handler's, and would be refused its sampling or hide its gated tools. Connect again.
        outdated = capabilityKey(this.#options.upstreamRequests?.()) !== this.#advertised;
        if (!this.#isClosed() && !outdated) {
          if (this.#era === 'auto') this.#memory.remember(client);
          // A 2026-07-28 server announces list changes (and resource updates) only on a
          // subscriptions/listen stream.
          client.subscriptions = this.#resources;
          await this.#resources.connect(client);
          this.#server = serverInfoOf(client);
          this.#client = client;
          connected = true;
          this.#setState('connected');
          if (this.#rootsUntold) this.rootsChanged();
          const heartbeat = this.#heartbeat(client);
          await closed;
          clearInterval(heartbeat);
          this.#lastError = this.#dropCause ?? new Error('the connection to the server was closed');
        }
      } catch (error) {
        this.#lastError = toError(error);
      }
      // Idempotent, and what ends a stdio child whatever path got here.
      if (client !== undefined) await this.#resources.disconnect(client);
      await client?.close().catch(() => undefined);
      this.#server = undefined;
      this.#client = undefined;
      this.#pid = undefined;
      this.#lists.clear();
      if (this.#isClosed()) break;
      if (this.#authError !== undefined || isAuthRequired(this.#lastError)) {
        // No reconnect loop: nothing changes until someone logs in.
        this.#lastError = this.#authError ?? this.#lastError;
        this.#authError = undefined;
        this.#loop = undefined;
        this.#setState('auth_required', this.#lastError);
        // Until new tokens are stored (a login elsewhere), which start it again.
        this.#authRecheck = watchForLogin(
          this.source,
          this.#options.authRecheckMs ?? DEFAULT_AUTH_RECHECK_MS,
          () => {
            if (this.#state === 'auth_required' && !this.#isClosed()) this.start();
          },
        );
        return;
      }
      if (outdated) continue;
      if (!connected && this.#byMemory) {
        // What the server spoke last time did not work this time: probe again, at once.
        this.#memory.forget();
        continue;
      }
      this.#setState(connected ? 'disconnected' : 'failed', this.#lastError);
      if (this.#renegotiating && connected) {
        // A deliberate reconnect: no backoff.
        this.#renegotiating = false;
        continue;
      }
      const { initialDelayMs = 250, maxDelayMs = 30_000 } = this.#options.backoff ?? {};
      const wait = backoffDelay(attempt++, { minDelay: initialDelayMs, maxDelay: maxDelayMs });
      await sleep(wait, AbortSignal.any([this.#stopWaiting.signal, this.#wake.signal]));
    }
  }

  /** Checks the server every {@link ConnectorOptions.pingIntervalMs}, when set. */
  #heartbeat(client: Client): NodeJS.Timeout | undefined {
    const every = this.#options.pingIntervalMs;
    if (every === undefined || every <= 0) return undefined;
    return setInterval(() => {
      this.#checkAlive(client, new Error(`a ping, sent every ${String(every)} ms`));
    }, every).unref();
  }

  async #connect(): Promise<ConnectorClient> {
    this.#dropCause = undefined;
    const source = this.source;
    const stdio = isStdio(source);
    // A process's start (an npx download, an image pull) gets a bound of its own, longer than a
    // request's.
    const timeout = stdio
      ? (this.#options.startTimeoutMs ?? this.#options.connectTimeoutMs ?? DEFAULT_START_TIMEOUT_MS)
      : (this.#options.connectTimeoutMs ?? 10_000);
    // Closing the connector abandons an attempt in progress rather than waiting it out.
    const signal = this.#stopWaiting.signal;
    const upstream = this.#options.upstreamRequests?.();
    const calls = new CallTracker();
    // Whose roots a server asks for outside a call outlives the connection it was learnt on.
    calls.lastCaller = this.#calls?.lastCaller;
    this.#calls = calls;
    this.#advertised = capabilityKey(upstream);
    // Only a stdio server's silence means "2025": over HTTP the probe waits as any request does.
    const probeTimeout = stdio
      ? Math.min(this.#options.eraProbeTimeoutMs ?? DEFAULT_ERA_PROBE_TIMEOUT_MS, timeout)
      : undefined;
    const negotiation = negotiationFor(this.#era, probeTimeout);
    const make = (chosen = negotiation): ConnectorClient =>
      makeConnectorClient({
        info: this.#options.clientInfo ?? { name: 'toolplane', version: '0.0.0' },
        namespace: this.namespace,
        upstream,
        currentUpstream: () => this.#options.upstreamRequests?.(),
        negotiation: chosen,
        calls,
        answer: (request, mcpReq) =>
          answerUpstream(this.#options.upstreamRequests?.(), {
            namespace: this.namespace,
            calls,
            request,
            mcpReq,
          }),
        refresh: (client, kind) => this.#lists.refresh(client, kind),
        emit: (event) => {
          this.#emit(event);
        },
      });
    const prior = this.#era === 'auto' ? this.#memory.prior : undefined;
    this.#byMemory = prior !== undefined;
    let current: Client | undefined;
    // The openers hand back the client `make` made, typed as the SDK's Client.
    const connected = (client: Client): ConnectorClient => {
      if (!(client instanceof ConnectorClient)) throw new TypeError('not a connector client');
      client.calls = calls;
      if (client.transport !== undefined) {
        calls.install(client.transport);
        askForLogs(client.transport, this.#options.logLevel ?? 'debug');
      }
      current = client;
      return client;
    };
    const attempt = { make, timeout, signal, prior, modernOnly: this.#era === '2026' };
    if (isStdio(source)) {
      const { maxMessageBytes } = this.#options;
      const limits = maxMessageBytes === undefined ? {} : { maxMessageBytes };
      let opened: Awaited<ReturnType<typeof openStdio>>;
      try {
        opened = await openStdio(source, { ...attempt, ...limits });
      } catch (error) {
        // A probe answered after its bound made a 2026-only server look like a 2025 one; its
        // refusal of 2025 names what it speaks, so the next start speaks that, unprobed.
        if (this.#era !== 'auto' || signal.aborted || !refusedForModern(error)) throw error;
        const pinned = negotiationFor('2026', undefined);
        opened = await openStdio(source, { ...attempt, ...limits, make: () => make(pinned) });
      }
      this.#pid = opened.pid;
      return connected(opened.client);
    }
    const client = await openHttp(source, {
      ...attempt,
      onRelatedRequest: (callId, requestId) => {
        calls.relate(callId, requestId);
      },
      onSessionDoubt: (error) => {
        if (current !== undefined) this.#checkAlive(current, error);
      },
      isClosed: () => this.#isClosed(),
      onAuthRequired: (error) => {
        this.#authError = toError(error);
        // After the failing request has its error, not the connection's "closed".
        setImmediate(() => void current?.close().catch(() => undefined));
      },
    });
    return connected(client);
  }

  /**
   * A response stream broke, a resumption failed, the server answered 404 for the session, or a
   * heartbeat is due (see {@link ConnectorOptions.pingIntervalMs}).
   * The SDK never notices a server that died or forgot the session, so a ping decides whether the
   * connection is still there; if not, it is closed, which fails every request in flight and
   * starts a reconnect (a new session). One check at a time per connection.
   */
  #checkAlive(client: Client, error: unknown): void {
    if (this.#client !== client || this.#checking.has(client)) return;
    this.#checking.add(client);
    client
      .ping({ timeout: this.#options.connectTimeoutMs ?? 10_000 })
      .catch(async () => {
        this.#lastError = new Error('the server stopped answering or lost the session', {
          cause: error,
        });
        await client.close();
      })
      .catch(() => undefined)
      .finally(() => this.#checking.delete(client));
  }

  #setState(state: ConnectorState, error?: Error): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const wake of this.#stateWaiters) wake();
    this.#stateWaiters.clear();
    const server = state === 'connected' ? this.#server : undefined;
    this.#emit({
      type: 'state_change',
      namespace: this.namespace,
      state,
      ...(error === undefined ? {} : { error }),
      ...(server === undefined ? {} : { server }),
    });
  }

  #nextState(signal: AbortSignal | undefined): Promise<void> {
    return nextWake(this.#stateWaiters, signal, `waiting for "${this.namespace}"`);
  }

  #emit(event: ConnectorEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A listener's failure is its own; the connection carries on.
    }
  }
}

function isTooLarge(error: unknown): error is ToolError {
  return ToolError.isInstance(error) && error.code === 'message_too_large';
}

/** Creates a {@link Connector} for an upstream MCP server; call `start()` to connect. */
export function createConnector(
  source: ConnectorSource,
  options: ConnectorOptions = {},
): Connector {
  return new Connector(source, options);
}
