import type { Client } from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import { backoffDelay } from '@toolplane/toolrun';
import { CallTracker, capabilityKey } from './call-tracker.js';
import {
  DEFAULT_ERA_PROBE_TIMEOUT_MS,
  EraMemory,
  refusedForModern,
  negotiationFor,
  serverInfoOf,
  type ConnectorEra,
  type ConnectorServerInfo,
} from './connector-era.js';
import { ListCache, type ListKind } from './connector-lists.js';
import { openHttp, openStdio } from './connector-open.js';
import { closedPromise, isStdio, toError } from './connector-sources.js';
import { nextWake, sleep } from './connector-timing.js';
import { DEFAULT_START_TIMEOUT_MS } from './connector-types.js';
import type {
  ConnectorEvent,
  ConnectorOptions,
  ConnectorSource,
  ConnectorState,
} from './connector-types.js';
import { answerUpstream, askForLogs, makeConnectorClient } from './connector-setup.js';
import { ConnectorClient } from './connector-client.js';
import { ResourceSubscriptions } from './connector-listen.js';
import { DEFAULT_AUTH_RECHECK_MS, watchForLogin } from './oauth/login-watch.js';
import { isAuthRequired } from './oauth/stored-provider.js';

/**
 * The connect loop behind a {@link Connector}: it connects (spawning stdio servers), loads the
 * server's lists, waits for the connection to end, and connects again with capped, fully-jittered
 * exponential backoff until it is closed. It owns the connection's state; the connector's
 * controls (reconnect, drain, renegotiate, readiness) act on it through the members below.
 */
export class ConnectionLoop {
  readonly namespace: string;
  readonly source: ConnectorSource;
  readonly era: ConnectorEra;
  readonly #options: ConnectorOptions;
  #state: ConnectorState = 'disconnected';
  #client: Client | undefined;
  #pid: number | undefined;
  readonly lists: ListCache;
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
  // Aborted by wake(): cuts a backoff wait short.
  #wake = new AbortController();
  // Connections whose liveness a ping is checking.
  #checking = new WeakSet<Client>();
  readonly #memory = new EraMemory();
  // Whether the connection being made went by a remembered era verdict (see EraMemory).
  #byMemory = false;
  #server: ConnectorServerInfo | undefined;
  // Kept across connections: a new connection subscribes (or listens) to them again.
  readonly #resources = new ResourceSubscriptions((kind) => this.lists.mirrors(kind));
  // Set when the OAuth client found, on a live connection, that a person must log in.
  #authError: Error | undefined;
  // While auth_required: looks for tokens a login elsewhere saved.
  #authRecheck: NodeJS.Timeout | undefined;

  /** Takes a source and options the {@link Connector} has already checked. */
  constructor(init: {
    readonly namespace: string;
    readonly source: ConnectorSource;
    readonly era: ConnectorEra;
    readonly options: ConnectorOptions;
    /** What `options.lists` mirrors, checked (see `mirroredLists`). */
    readonly lists: ReadonlySet<ListKind>;
  }) {
    this.namespace = init.namespace;
    this.source = init.source;
    this.era = init.era;
    this.#options = init.options;
    // A list it can no longer load ends the connection, whose reconnection reports why.
    this.lists = new ListCache((client, error) => {
      if (this.#client === client && isTooLarge(error)) {
        this.#dropCause = error;
        void client.close().catch(() => undefined);
      }
    }, init.lists);
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

  /** What the server said about itself on the current connection. */
  get server(): ConnectorServerInfo | undefined {
    return this.#server;
  }

  /** The calls in flight on the current (or last) connection. */
  get calls(): CallTracker | undefined {
    return this.#calls;
  }

  /**
   * Tells the server its client's roots changed, when the connection advertised roots; told
   * while the connection is being made again, it is told to the new one once connected.
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

  /** The capabilities the current connection advertised, as {@link capabilityKey} writes them. */
  get advertised(): string {
    return this.#advertised;
  }

  /** Whether the loop runs (false before the first start and while waiting for a login). */
  get running(): boolean {
    return this.#loop !== undefined;
  }

  /** True when the upstream request handler would advertise other capabilities now. */
  upstreamChanged(): boolean {
    return capabilityKey(this.#options.upstreamRequests?.()) !== this.#advertised;
  }

  // A method, not a field, so that checks after an await are not narrowed away.
  /** True once {@link ConnectionLoop.close} was called. */
  isClosed(): boolean {
    return this.#stopWaiting.signal.aborted;
  }

  /** Starts the loop, unless it runs. @throws {ToolError} `connector_unavailable` once closed. */
  start(): void {
    if (this.isClosed())
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" is closed`);
    clearInterval(this.#authRecheck);
    this.#authRecheck = undefined;
    this.#loop ??= this.#run();
  }

  /** Cuts a backoff wait short. */
  wake(): void {
    const wake = this.#wake;
    this.#wake = new AbortController();
    wake.abort();
  }

  /**
   * Closes `client`, which must be the current connection, so the loop connects again at once
   * without a backoff wait.
   */
  redo(client: Client): Promise<void> {
    this.#renegotiating = true;
    return client.close().catch(() => undefined);
  }

  /** Resolves at the next state change, or rejects (`cancelled`) when `signal` aborts. */
  nextState(signal: AbortSignal | undefined): Promise<void> {
    return nextWake(this.#stateWaiters, signal, `waiting for "${this.namespace}"`);
  }

  /** Stops reconnecting, closes the connection (ending a stdio child) and waits for it. */
  async close(): Promise<void> {
    this.#stopWaiting.abort();
    clearInterval(this.#authRecheck);
    await this.#client?.close().catch(() => undefined);
    await this.#loop;
    this.#setState('disconnected');
  }

  async #run(): Promise<void> {
    let attempt = 0;
    while (!this.isClosed()) {
      this.#setState('connecting');
      let client: ConnectorClient | undefined;
      let connected = false;
      let outdated = false;
      try {
        client = await this.#connect();
        // A completed handshake resets the backoff, whatever happens next.
        attempt = 0;
        const closed = closedPromise(client);
        await this.lists.loadAll(client);
        // The handler changed while this connection was made (a gateway served while its
        // upstreams were still connecting): the server was told other capabilities than the
        // handler's, and would be refused its sampling or hide its gated tools. Connect again.
        outdated = capabilityKey(this.#options.upstreamRequests?.()) !== this.#advertised;
        if (!this.isClosed() && !outdated) {
          if (this.era === 'auto') this.#memory.remember(client);
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
      this.lists.clear();
      if (this.isClosed()) break;
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
            if (this.#state === 'auth_required' && !this.isClosed()) this.start();
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
    // A call of another session than the last makes it the one whose roots the server sees.
    calls.onCallerChange = () => {
      this.rootsChanged();
    };
    this.#calls = calls;
    this.#advertised = capabilityKey(upstream);
    // Only a stdio server's silence means "2025": over HTTP the probe waits as any request does.
    const probeTimeout = stdio
      ? Math.min(this.#options.eraProbeTimeoutMs ?? DEFAULT_ERA_PROBE_TIMEOUT_MS, timeout)
      : undefined;
    const negotiation = negotiationFor(this.era, probeTimeout);
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
        refresh: (client, kind) => this.lists.refresh(client, kind),
        follows: (kind) => this.lists.follows(kind),
        emit: (event) => {
          this.#emit(event);
        },
      });
    const prior = this.era === 'auto' ? this.#memory.prior : undefined;
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
    const attempt = { make, timeout, signal, prior, modernOnly: this.era === '2026' };
    if (isStdio(source)) {
      const { maxMessageBytes } = this.#options;
      const limits = maxMessageBytes === undefined ? {} : { maxMessageBytes };
      let opened: Awaited<ReturnType<typeof openStdio>>;
      try {
        opened = await openStdio(source, { ...attempt, ...limits });
      } catch (error) {
        // A probe answered after its bound made a 2026-only server look like a 2025 one; its
        // refusal of 2025 names what it speaks, so the next start speaks that, unprobed.
        if (this.era !== 'auto' || signal.aborted || !refusedForModern(error)) throw error;
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
      isClosed: () => this.isClosed(),
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
   * starts a reconnect (a new session). One check at a time per connection. 2026-07-28 has no
   * `ping` (the SDK refuses to send it), so a connection of that era is checked with
   * `server/discover`, which every such server answers.
   */
  #checkAlive(client: Client, error: unknown): void {
    if (this.#client !== client || this.#checking.has(client)) return;
    this.#checking.add(client);
    const options = { timeout: this.#options.connectTimeoutMs ?? 10_000 };
    (client.getProtocolEra() === 'modern' ? client.discover(options) : client.ping(options))
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
