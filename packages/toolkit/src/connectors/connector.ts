import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingLevel,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { NAMESPACE_PATTERN, ToolError } from '@toolplane/toolmodel';
import { ConnectorClient } from './connector-client.js';
import { withElicitationDefaults } from './elicitation-defaults.js';
import { inferNamespace } from './namespace.js';
import { StreamableHttpClientTransport } from './http-client-transport.js';
import { requestScopedFetch } from './scoped-fetch.js';
import { StdioClientTransport } from './stdio-client-transport.js';

export { requestScopedFetch } from './scoped-fetch.js';
export type { RequestScopedFetchOptions } from './scoped-fetch.js';

/** An upstream MCP server started as a child process and spoken to over stdio. */
export interface StdioSource {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A remote MCP server over Streamable HTTP (falling back to SSE). */
export interface HttpSource {
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
}

/** Where a connector finds its server: a stdio command, an http(s) URL, or a URL with headers. */
export type ConnectorSource = StdioSource | HttpSource | string | URL;

/** A connector's lifecycle state. */
export type ConnectorState = 'connecting' | 'connected' | 'disconnected' | 'failed';

/** Everything a connector reports; every event names the connector's namespace. */
export type ConnectorEvent =
  | {
      readonly type: 'state_change';
      readonly namespace: string;
      readonly state: ConnectorState;
      readonly error?: Error;
    }
  | { readonly type: 'tool_list_changed'; readonly namespace: string }
  | { readonly type: 'prompt_list_changed'; readonly namespace: string }
  | { readonly type: 'resource_list_changed'; readonly namespace: string }
  | { readonly type: 'resource_updated'; readonly namespace: string; readonly uri: string }
  | {
      /** A `notifications/message` log entry from the server, as it sent it. */
      readonly type: 'log_message';
      readonly namespace: string;
      readonly level: LoggingLevel;
      readonly logger?: string;
      readonly data: unknown;
    };

/** The `_meta` key naming who made a tool call, so the server's requests during it reach them. */
export const CALLER_META_KEY = 'io.toolplane/caller';

/** A request an upstream server sends its client during a call: sampling or elicitation. */
export type UpstreamRequest = CreateMessageRequest | ElicitRequest;

/** Where an {@link UpstreamRequest} came from and whose call caused it. */
export interface UpstreamRequestContext {
  /** The connector's namespace. */
  readonly namespace: string;
  /** The {@link CALLER_META_KEY} value of the tool call the request belongs to. */
  readonly caller: string;
  /** Aborts when the server cancels the request or the connection ends. */
  readonly signal: AbortSignal;
}

/** Whose roots a server's `roots/list` asks for; see {@link UpstreamRequestHandler.listRoots}. */
export interface RootsRequestContext {
  /** The connector's namespace. */
  readonly namespace: string;
  /**
   * The {@link CALLER_META_KEY} value of the call the request belongs to; outside a call, that of
   * the latest call on the connection or of the latest {@link Connector.rootsChanged}, whichever
   * came last; `undefined` before either.
   */
  readonly caller: string | undefined;
  /** Aborts when the server cancels the request or the connection ends. */
  readonly signal: AbortSignal;
}

/**
 * Answers upstream servers' sampling and elicitation requests on behalf of whoever made the call
 * that caused them, and their `roots/list`; see {@link ConnectorOptions.upstreamRequests}.
 */
export interface UpstreamRequestHandler {
  /** What it can answer; only this is advertised to servers (read at every connect). */
  readonly capabilities: {
    readonly sampling?: boolean;
    readonly elicitation?: boolean;
    /** Advertises `roots` (with `listChanged`); `roots/list` goes to {@link listRoots}. */
    readonly roots?: boolean;
  };
  /** Answers `roots/list`; no roots when absent. */
  listRoots?(context: RootsRequestContext): Promise<ListRootsResult>;
  /**
   * Answers `request`; throw an `McpError` to answer with that error. An accepted form-mode
   * elicitation may leave fields out: the connector fills in the server's defaults for them
   * (SEP-1034; it advertises `applyDefaults`).
   */
  handle(
    request: UpstreamRequest,
    context: UpstreamRequestContext,
  ): Promise<CreateMessageResult | ElicitResult>;
}

/** Options for {@link createConnector}. */
export interface ConnectorOptions {
  /**
   * Who answers the server's `sampling/createMessage` and `elicitation/create` requests, read at
   * every connect (see {@link Connector.renegotiate}). A request is routed to the tool call it
   * belongs to: over Streamable HTTP by the response stream it arrives on; otherwise to the only
   * caller with calls in flight. When calls of several callers are in flight and nothing says
   * which one the request belongs to, it is refused with an MCP error rather than guessed.
   */
  readonly upstreamRequests?: () => UpstreamRequestHandler | undefined;
  /** The namespace its tools, prompts and resources appear under; inferred from the source when absent. */
  readonly namespace?: string;
  /** How the client introduces itself to the server. */
  readonly clientInfo?: Implementation;
  /**
   * The largest message a stdio server may send, in bytes; a larger one is dropped alone and the
   * request it answered fails, the connection goes on. Default 10 MiB.
   */
  readonly maxMessageBytes?: number;
  /** How long one connection attempt (spawn or HTTP handshake, then `initialize`) may take. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Reconnection backoff: full jitter over `initialDelayMs · 2^attempt`, capped at `maxDelayMs`. */
  readonly backoff?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /** Receives state changes, list changes and resource updates. Must not throw (errors are swallowed). */
  readonly onEvent?: (event: ConnectorEvent) => void;
}

/** The lists a connector caches from its server. */
export interface ConnectorLists {
  readonly tools: readonly McpTool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
}

type ListKind = keyof ConnectorLists;

const EMPTY_LISTS: ConnectorLists = Object.freeze({
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
});

/** A paginated list endpoint cannot send more pages than this (a broken server might loop). */
const MAX_PAGES = 1_000;
const STDERR_TAIL_BYTES = 2_048;

function isStdio(source: ConnectorSource): source is StdioSource {
  return typeof source === 'object' && !(source instanceof URL) && 'command' in source;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

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
export class Connector {
  readonly namespace: string;
  readonly source: ConnectorSource;
  #options: ConnectorOptions;
  #state: ConnectorState = 'disconnected';
  #client: Client | undefined;
  #pid: number | undefined;
  #lists: ConnectorLists = EMPTY_LISTS;
  #lastError: Error | undefined;
  #loop: Promise<void> | undefined;
  #stopWaiting = new AbortController();
  #stateWaiters = new Set<() => void>();
  #refreshing = new Map<ListKind, Promise<void>>();
  #stale = new Set<ListKind>();
  // What the current connection advertised, and whether it is being redone to change that.
  #advertised = '';
  // The calls in flight on the current connection, with their callers.
  #calls: CallTracker | undefined;
  #renegotiating = false;
  // Connections whose liveness a ping is checking.
  #checking = new WeakSet<Client>();

  /**
   * @throws {ToolError} `invalid_config` for an empty command, a URL that is not http(s), or a
   * namespace that breaks the namespace rule.
   */
  constructor(source: ConnectorSource, options: ConnectorOptions = {}) {
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

  /** The server's cached lists (empty while it is not connected). */
  get lists(): ConnectorLists {
    return this.#lists;
  }

  // A method, not a field, so that checks after an await are not narrowed away.
  #isClosed(): boolean {
    return this.#stopWaiting.signal.aborted;
  }

  /** Starts connecting in the background; reconnects until {@link Connector.close}. Idempotent. */
  start(): void {
    if (this.#isClosed())
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" is closed`);
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
      throw new ToolError('connector_unavailable', `connector "${this.namespace}" was not started`);
    }
    for (;;) {
      if (this.#state === 'connected') return;
      if (this.#isClosed()) throw this.unavailable();
      const seen = this.#state;
      await this.#nextState(options.signal);
      if (this.#state === 'failed' && seen !== 'failed') throw this.unavailable();
    }
  }

  /** The error a call gets while this connector is not connected. */
  unavailable(): ToolError {
    const why =
      this.#lastError === undefined ? this.#state : `${this.#state}: ${this.#lastError.message}`;
    return new ToolError(
      'connector_unavailable',
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

  /** Stops reconnecting, closes the connection (ending a stdio child) and waits for it. Idempotent. */
  /**
   * Tells the server its client's roots changed (`notifications/roots/list_changed`), when the
   * handler advertised roots; its next `roots/list` outside a call is answered for `caller`.
   */
  rootsChanged(caller?: string): void {
    if (this.#calls !== undefined && caller !== undefined) this.#calls.lastCaller = caller;
    const client = this.#client;
    if (client === undefined || !this.#advertised.includes('r')) return;
    client.sendRootsListChanged().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#stopWaiting.abort();
    await this.#client?.close().catch(() => undefined);
    await this.#loop;
    this.#setState('disconnected');
  }

  async #run(): Promise<void> {
    let attempt = 0;
    while (!this.#isClosed()) {
      this.#setState('connecting');
      let client: Client | undefined;
      let connected = false;
      let outdated = false;
      try {
        client = await this.#connect();
        // A completed handshake resets the backoff, whatever happens next.
        attempt = 0;
        const closed = closedPromise(client);
        await this.#loadAll(client);
        // The handler changed while this connection was made (a gateway served while its
        // upstreams were still connecting): the server was told other capabilities than the
        // handler's, and would be refused its sampling or hide its gated tools. Connect again.
        outdated = capabilityKey(this.#options.upstreamRequests?.()) !== this.#advertised;
        if (!this.#isClosed() && !outdated) {
          this.#client = client;
          connected = true;
          this.#setState('connected');
          await closed;
          this.#lastError = new Error('the connection to the server was closed');
        }
      } catch (error) {
        this.#lastError = toError(error);
      }
      // Idempotent, and what ends a stdio child whatever path got here.
      await client?.close().catch(() => undefined);
      this.#client = undefined;
      this.#pid = undefined;
      this.#lists = EMPTY_LISTS;
      if (this.#isClosed()) break;
      if (outdated) continue;
      this.#setState(connected ? 'disconnected' : 'failed', this.#lastError);
      if (this.#renegotiating && connected) {
        // A deliberate reconnect: no backoff.
        this.#renegotiating = false;
        continue;
      }
      await this.#sleep(this.#backoff(attempt++));
    }
  }

  #backoff(attempt: number): number {
    const initial = this.#options.backoff?.initialDelayMs ?? 250;
    const max = this.#options.backoff?.maxDelayMs ?? 30_000;
    return Math.random() * Math.min(max, initial * 2 ** Math.min(attempt, 30));
  }

  async #sleep(ms: number): Promise<void> {
    const signal = this.#stopWaiting.signal;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async #connect(): Promise<Client> {
    const timeout = this.#options.connectTimeoutMs ?? 10_000;
    // Closing the connector abandons an attempt in progress rather than waiting it out.
    const signal = this.#stopWaiting.signal;
    const info = this.#options.clientInfo ?? { name: 'toolplane', version: '0.0.0' };
    const upstream = this.#options.upstreamRequests?.();
    const calls = new CallTracker();
    this.#calls = calls;
    this.#advertised = capabilityKey(upstream);
    const make = (): Client => {
      const client = new ConnectorClient(info, {
        capabilities: {
          ...(upstream?.capabilities.sampling === true ? { sampling: {} } : {}),
          // Form mode only: URL mode needs the caller's client to support it, unknown here.
          // Defaults are applied here, whatever the caller's client does (SEP-1034).
          ...(upstream?.capabilities.elicitation === true
            ? { elicitation: { form: { applyDefaults: true } } }
            : {}),
          ...(upstream?.capabilities.roots === true ? { roots: { listChanged: true } } : {}),
        },
      });
      this.#listen(client);
      if (upstream?.capabilities.sampling === true) {
        client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
          this.#upstreamRequest(calls, request, extra),
        );
      }
      if (upstream?.capabilities.elicitation === true) {
        client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
          this.#upstreamRequest(calls, request, extra),
        );
      }
      if (upstream?.capabilities.roots === true) {
        client.setRequestHandler(ListRootsRequestSchema, async (_request, extra) => {
          const handler = this.#options.upstreamRequests?.();
          const context = {
            namespace: this.namespace,
            caller: calls.rootsCaller(extra.requestId),
            signal: extra.signal,
          };
          return (await handler?.listRoots?.(context)) ?? { roots: [] };
        });
      }
      return client;
    };
    let current: Client | undefined;
    const connected = (client: Client): Client => {
      if (client.transport !== undefined) calls.install(client.transport);
      current = client;
      return client;
    };
    const source = this.source;
    if (isStdio(source)) {
      const transport = new StdioClientTransport({
        command: source.command,
        ...(source.args ? { args: source.args } : {}),
        ...(source.env ? { env: source.env } : {}),
        ...(source.cwd ? { cwd: source.cwd } : {}),
        ...(this.#options.maxMessageBytes === undefined
          ? {}
          : { maxMessageBytes: this.#options.maxMessageBytes }),
      });
      const tail = captureTail(transport);
      const client = make();
      const connecting = client.connect(transport, { timeout, signal });
      // Spawned synchronously by the transport's start(); read now, as a failed connect forgets it.
      const pid = transport.pid;
      try {
        await connecting;
        this.#pid = pid ?? undefined;
        return connected(client);
      } catch (error) {
        // Resolves once the child has exited, SIGKILLed if it must be.
        await client.close().catch(() => undefined);
        const stderr = tail().trim();
        throw new Error(
          `could not start "${source.command}": ${toError(error).message}${stderr ? `\n${stderr}` : ''}`,
          { cause: error },
        );
      }
    }
    const { url, headers } = httpTarget(source);
    const onSessionDoubt = (error: unknown): void => {
      if (current !== undefined) this.#checkAlive(current, error);
    };
    try {
      const client = make();
      const transport = new StreamableHttpClientTransport(url, {
        headers,
        onRelatedRequest: (callId, requestId) => {
          calls.relate(callId, requestId);
        },
        onSessionDoubt,
      });
      await client.connect(transport, { timeout, signal });
      return connected(client);
    } catch (streamableError) {
      if (this.#isClosed()) throw streamableError;
      // Servers that predate Streamable HTTP speak the older HTTP+SSE transport.
      const client = make();
      const fetch = requestScopedFetch({
        onStreamError: (_requestId, error) => {
          onSessionDoubt(error);
        },
      });
      try {
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- the fallback the spec asks clients to keep
        await client.connect(new SSEClientTransport(url, { requestInit: { headers }, fetch }), {
          timeout,
          signal,
        });
        return connected(client);
      } catch {
        await client.close().catch(() => undefined);
        throw streamableError;
      }
    }
  }

  /**
   * A response stream broke, a resumption failed, or the server answered 404 for the session.
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

  async #upstreamRequest<R extends CreateMessageResult | ElicitResult>(
    calls: CallTracker,
    request: UpstreamRequest,
    extra: { requestId: string | number; signal: AbortSignal },
  ): Promise<R> {
    const handler = this.#options.upstreamRequests?.();
    if (handler === undefined) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${request.method} is no longer served by this client; reconnect to renegotiate`,
      );
    }
    const caller = calls.callerOf(extra.requestId, request.method);
    const context = { namespace: this.namespace, caller, signal: extra.signal };
    const result = await handler.handle(request, context);
    return (
      request.method === 'elicitation/create'
        ? withElicitationDefaults(request, result as ElicitResult)
        : result
    ) as R;
  }

  #listen(client: Client): void {
    const changed =
      (
        kind: ListKind,
        type: 'tool_list_changed' | 'prompt_list_changed' | 'resource_list_changed',
      ) =>
      async (): Promise<void> => {
        await this.#refresh(client, kind);
        if (kind === 'resources') await this.#refresh(client, 'resourceTemplates');
        this.#emit({ type, namespace: this.namespace });
      };
    client.setNotificationHandler(
      ToolListChangedNotificationSchema,
      changed('tools', 'tool_list_changed'),
    );
    client.setNotificationHandler(
      PromptListChangedNotificationSchema,
      changed('prompts', 'prompt_list_changed'),
    );
    client.setNotificationHandler(
      ResourceListChangedNotificationSchema,
      changed('resources', 'resource_list_changed'),
    );
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      this.#emit({
        type: 'log_message',
        namespace: this.namespace,
        level: params.level,
        ...(params.logger === undefined ? {} : { logger: params.logger }),
        data: params.data,
      });
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      this.#emit({
        type: 'resource_updated',
        namespace: this.namespace,
        uri: notification.params.uri,
      });
    });
  }

  async #loadAll(client: Client): Promise<void> {
    this.#lists = EMPTY_LISTS;
    await Promise.all(
      (['tools', 'prompts', 'resources', 'resourceTemplates'] as const).map((kind) =>
        this.#refresh(client, kind),
      ),
    );
  }

  /** Re-fetches one list; a refresh asked for while one runs runs once more after it (coalesced). */
  async #refresh(client: Client, kind: ListKind): Promise<void> {
    const running = this.#refreshing.get(kind);
    if (running) {
      this.#stale.add(kind);
      return running;
    }
    const task = (async () => {
      do {
        this.#stale.delete(kind);
        const items = await fetchList(client, kind);
        this.#lists = { ...this.#lists, [kind]: items };
      } while (this.#stale.has(kind));
    })().finally(() => this.#refreshing.delete(kind));
    this.#refreshing.set(kind, task);
    return task;
  }

  #setState(state: ConnectorState, error?: Error): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const wake of this.#stateWaiters) wake();
    this.#stateWaiters.clear();
    this.#emit(
      error === undefined
        ? { type: 'state_change', namespace: this.namespace, state }
        : { type: 'state_change', namespace: this.namespace, state, error },
    );
  }

  #nextState(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(
          new ToolError('cancelled', `waiting for "${this.namespace}" was cancelled`, {
            cause: signal.reason,
          }),
        );
        return;
      }
      const onAbort = (): void => {
        this.#stateWaiters.delete(wake);
        reject(
          new ToolError('cancelled', `waiting for "${this.namespace}" was cancelled`, {
            cause: signal?.reason,
          }),
        );
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#stateWaiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
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

/** Creates a {@link Connector} for an upstream MCP server; call `start()` to connect. */
export function createConnector(
  source: ConnectorSource,
  options: ConnectorOptions = {},
): Connector {
  return new Connector(source, options);
}

async function fetchList(client: Client, kind: ListKind): Promise<readonly unknown[]> {
  const capabilities = client.getServerCapabilities() ?? {};
  const supported = kind === 'resourceTemplates' ? capabilities.resources : capabilities[kind];
  if (supported === undefined) return [];
  const page = (cursor: string | undefined) => {
    const params = cursor === undefined ? {} : { cursor };
    switch (kind) {
      case 'tools':
        return client.listTools(params).then((r) => ({ items: r.tools, next: r.nextCursor }));
      case 'prompts':
        return client.listPrompts(params).then((r) => ({ items: r.prompts, next: r.nextCursor }));
      case 'resources':
        return client
          .listResources(params)
          .then((r) => ({ items: r.resources, next: r.nextCursor }));
      case 'resourceTemplates':
        return client
          .listResourceTemplates(params)
          .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor }));
    }
  };
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const { items: batch, next } = await page(cursor);
    items.push(...batch);
    // A cursor seen before would loop forever: stop at what we have.
    if (next === undefined || seen.has(next)) return items;
    seen.add(next);
    cursor = next;
  }
  return items;
}

/**
 * The tool calls in flight on one connection, by JSON-RPC ID, with their callers: the caller is
 * read from (and taken out of) each call's `_meta` as it is sent, so the server never sees it.
 */
class CallTracker {
  readonly #callers = new Map<string | number, string>();
  // A server request's ID → the ID of the call on whose response stream it arrived.
  readonly #related = new Map<string | number, string | number>();
  /** The caller of the latest call sent, or of the latest roots change; see {@link rootsCaller}. */
  lastCaller: string | undefined;

  install(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as { method?: string; id?: string | number; params?: unknown };
      const params = m.params as { _meta?: Record<string, unknown> } | undefined;
      const caller = params?._meta?.[CALLER_META_KEY];
      if (m.method === 'tools/call' && m.id !== undefined && typeof caller === 'string') {
        this.#callers.set(m.id, caller);
        this.lastCaller = caller;
        const { [CALLER_META_KEY]: _, ...meta } = params?._meta ?? {};
        const rest = { ...params, _meta: meta };
        if (Object.keys(meta).length === 0) delete (rest as { _meta?: unknown })._meta;
        return send({ ...message, params: rest }, options);
      }
      return send(message, options);
    };
    const receive = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: unknown; id?: string | number };
      if (m.method === undefined && m.id !== undefined && this.#callers.delete(m.id)) {
        for (const [request, call] of this.#related) {
          if (call === m.id) this.#related.delete(request);
        }
      }
      receive?.call(transport, message, extra);
    };
  }

  relate(callId: string | number, requestId: string | number): void {
    if (this.#callers.has(callId)) this.#related.set(requestId, callId);
  }

  /**
   * Whose roots a `roots/list` asks for: the caller of the call it is tied to or of the only one in
   * flight, else the latest caller on the connection (servers also ask outside calls: after
   * `initialized`, and after a roots change).
   */
  rootsCaller(requestId: string | number): string | undefined {
    const call = this.#related.get(requestId);
    const tied = call === undefined ? undefined : this.#callers.get(call);
    if (tied !== undefined) return tied;
    const callers = new Set(this.#callers.values());
    const [only] = callers;
    return callers.size === 1 ? only : this.lastCaller;
  }

  /**
   * The caller a server request belongs to.
   *
   * @throws {McpError} when no call is in flight, or calls of several callers are and nothing
   * ties the request to one of them.
   */
  callerOf(requestId: string | number, method: string): string {
    const call = this.#related.get(requestId);
    const tied = call === undefined ? undefined : this.#callers.get(call);
    if (tied !== undefined) return tied;
    const callers = new Set(this.#callers.values());
    const [only] = callers;
    if (callers.size === 1 && only !== undefined) return only;
    throw new McpError(
      ErrorCode.InvalidRequest,
      callers.size === 0
        ? `${method} arrived while no tool call of this client was in flight; send it during the call it belongs to`
        : `${method} cannot be tied to one of ${callers.size} callers with calls in flight; send it on the call's own response stream (Streamable HTTP with relatedRequestId)`,
    );
  }
}

function capabilityKey(handler: UpstreamRequestHandler | undefined): string {
  const { sampling, elicitation, roots } = handler?.capabilities ?? {};
  return `${sampling === true ? 's' : ''}${elicitation === true ? 'e' : ''}${roots === true ? 'r' : ''}`;
}

function captureTail(transport: StdioClientTransport): () => string {
  let tail = '';
  transport.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  return () => tail;
}

interface HttpTarget {
  readonly url: URL;
  readonly headers: Record<string, string>;
}

function closedPromise(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.onclose = resolve;
  });
}

function httpTarget(source: HttpSource | string | URL): HttpTarget {
  const spec = typeof source === 'string' || source instanceof URL ? { url: source } : source;
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch (error) {
    throw new ToolError(
      'invalid_config',
      `MCP server URL ${JSON.stringify(String(spec.url))} is not a URL`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('invalid_config', `MCP server URL must be http(s), got ${url.protocol}`);
  }
  const headers: Record<string, string> = { ...spec.headers };
  if ('token' in spec && spec.token !== undefined) headers.Authorization = `Bearer ${spec.token}`;
  return { url, headers };
}
