import type { Tool as McpTool } from '@modelcontextprotocol/server';
import {
  toolkitHost,
  type Toolkit,
  type ListError,
  type ToolkitEvent,
  type ToolkitHost,
  type ToolkitResourceTemplate,
} from '@toolplane/toolkit';
import { toMcpJson } from '@toolplane/toolmodel';
import { matches } from './call-results.js';
import { DEFAULT_SEPARATOR, NameTable, UriTable } from './names.js';
import type { Era } from './eras.js';
import { InputRounds } from './session/input-rounds.js';
import { callerKey, type HandlerExtra } from './auth/verified.js'; // OAuth (auth/)
import type { ListKind, PromptItem, ResourceItem, ToolItem } from './items.js';
import type { GatewayOptions, GatewayReconfigure } from './options.js';
import type { McpServerInstance } from './sdk/gateway-server.js';
import { listenedUris, ResourceListeners } from './session/resource-listeners.js';
import {
  upstreamLog,
  wantsLog,
  type SessionState,
  type SubscriptionTarget,
} from './session/state.js';
import {
  forwardUpstreamRequests,
  registerSession,
  unregisterSession,
} from './session/upstream-forwarding.js';
import { UpstreamSubscriptions } from './session/upstream-subscriptions.js';
import { checkGatewayOptions, RECONFIGURE_KEYS } from './option-checks.js';

/** A table, and the namespaces whose items could not be listed into it. */
export type Unlisted<T> = T & { readonly unlisted: readonly ListError[] };

/** The tool table of a {@link GatewayHub}: `built` is set once `building` has resolved. */
export interface ToolTable {
  readonly building: Promise<NameTable<ToolItem>>;
  /** The table as `tools/list` sends it, by exposed name; made on the first list. */
  listed?: Promise<readonly McpTool[]>;
  built?: NameTable<ToolItem>;
}

/**
 * What every session of one served toolkit shares: the name tables, the subscriptions and the
 * coalesced change notifications.
 *
 * @internal
 */
export class GatewayHub {
  readonly toolkit: Toolkit;
  /** The toolkit's host hooks: upstream requests, roots, subscriptions, session ends. */
  readonly host: ToolkitHost;
  #options: GatewayOptions;
  readonly #sessions = new Set<SessionState>();
  readonly #unsubscribe: (() => void)[];
  // The tool table, being built or built, until something changes.
  #tools: ToolTable | undefined;
  #negotiated = false;
  #pending = new Set<ListKind>();
  readonly #listChangeListeners = new Set<(kinds: readonly ListKind[]) => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  // Upstream subscriptions, counted across sessions and listen streams.
  readonly #upstream: UpstreamSubscriptions;

  /**
   * Who a 2026-07-28 request without a verified OAuth caller comes from, for learning from use:
   * `'session'` (the default: over stdio one connection is one client, and its session says so),
   * `'token'` (over HTTP behind one static bearer token: every request is the token holder's) or
   * `'none'` (over HTTP with no authentication: nothing tells two requests' callers apart, so
   * nothing is learned from them). `serveHttp` sets it.
   */
  modernCallers: 'session' | 'token' | 'none' = 'session';

  /** The `input_required` flows of 2026 clients' calls. */
  readonly rounds: InputRounds;

  /** The resource subscriptions of 2026 clients' `subscriptions/listen` streams. */
  readonly listeners = new ResourceListeners({
    hold: (target) => this.#upstream.hold(target),
    release: (target) => this.#upstream.letGo(target),
  });

  /** Resolves once upstream servers know they may ask the sessions for sampling and elicitation. */
  readonly negotiated: Promise<void>;

  constructor(toolkit: Toolkit, options: GatewayOptions = {}) {
    this.toolkit = toolkit;
    this.host = toolkitHost(toolkit);
    this.#options = options;
    this.rounds = new InputRounds({
      key: options.requestStateKey,
      ttlMs: options.inputRoundTtlMs,
      instanceId: options.instanceId,
      spend: options.spendRequestState,
      release:
        (options.replayRounds ??
          (options.requestStateKey === undefined ? 'elsewhere' : 'always')) === 'always',
      // A state answers only the caller it was sealed for (an OAuth principal; anyone without).
      bind: (ctx) => callerKey(ctx) ?? '', // OAuth (auth/)
    });
    this.negotiated = this.host
      .setUpstreamRequestHandler(forwardUpstreamRequests)
      .catch(() => {
        // A connector that failed to reconnect keeps retrying on its own.
      })
      .then(() => {
        this.#negotiated = true;
      });
    this.#upstream = new UpstreamSubscriptions(toolkit, this.host);
    this.#unsubscribe = [
      toolkit.onEvent((event) => {
        this.#onEvent(event);
      }),
      // Catches every change to the tool surface, including ones made straight on the index.
      toolkit.index.onChange(() => {
        this.#tools = undefined;
        this.#queue('tools');
      }),
    ];
  }

  /** The options in force: those served with, as {@link GatewayHub.reconfigure} last changed them. */
  get options(): GatewayOptions {
    return this.#options;
  }

  /**
   * Applies new filters, naming, mode and instructions from the next request on: the tables are
   * rebuilt and every session hears that its lists changed. Sessions stay open.
   */
  reconfigure(next: GatewayReconfigure): void {
    checkGatewayOptions(next, 'reconfigure', RECONFIGURE_KEYS);
    const { filter, mode, separator, transparent, instructions } = next;
    this.#options = { ...this.#options, filter, mode, separator, transparent, instructions };
    this.#tools = undefined;
    this.#queue('tools');
    this.#queue('prompts');
    this.#queue('resources');
  }

  /** Whether {@link GatewayHub.negotiated} has settled, so a handler need not wait a tick for it. */
  get isNegotiated(): boolean {
    return this.#negotiated;
  }

  /**
   * Hears the coalesced list changes every 2025 session is told of (for 2026-07-28 clients'
   * `subscriptions/listen` streams); returns the unsubscribe.
   */
  onListChange(listener: (kinds: readonly ListKind[]) => void): () => void {
    this.#listChangeListeners.add(listener);
    return () => {
      this.#listChangeListeners.delete(listener);
    };
  }

  /**
   * The key that links a caller's search to its later call of a result (learning from use):
   * a 2025 session's own token. A 2026-07-28 request over HTTP is a session of its own, so a
   * search and the call after it never share one: they are linked by the verified OAuth caller
   * (issuer, subject, client), else by the static token ({@link GatewayHub.modernCallers}), else
   * not at all. The 2026 envelope carries no caller identity to use instead: its `clientInfo`
   * names the client software, which every user of that client shares.
   */
  learningKey(session: SessionState, extra: HandlerExtra): string | undefined {
    if (session.era === 'legacy') return session.token;
    const caller = callerKey(extra); // OAuth (auth/)
    if (caller !== undefined) return `oauth\u0000${caller}`;
    if (this.modernCallers === 'token') return 'static-token';
    return this.modernCallers === 'session' ? session.token : undefined;
  }

  /** How many sessions are attached. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  attach(server: McpServerInstance, era: Era = 'legacy', source?: string): SessionState {
    const session: SessionState = {
      server,
      era,
      source,
      token: registerSession(server, era),
      initialized: false,
      subscriptions: new Map(),
      logLevel: undefined,
    };
    this.#sessions.add(session);
    return session;
  }

  detach(session: SessionState): void {
    if (!this.#sessions.delete(session)) return;
    unregisterSession(session.token);
    for (const uri of session.subscriptions.keys()) void this.unsubscribe(session, uri);
    // Its own connections to per-session servers go with it.
    void this.host.endSession(session.token).catch(() => undefined);
  }

  /** Runs `dispose` when the hub is disposed: how a mode made on first use (code mode) ends. */
  onDispose(dispose: () => void): void {
    this.#unsubscribe.push(dispose);
  }

  dispose(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.rounds.dispose();
    this.listeners.dispose();
    this.#listChangeListeners.clear();
    clearTimeout(this.#timer);
    for (const session of this.#sessions) {
      unregisterSession(session.token);
      void this.host.endSession(session.token).catch(() => undefined);
    }
    this.#sessions.clear();
  }

  // -- tables ------------------------------------------------------------------------------

  async tools(fresh = false): Promise<NameTable<ToolItem>> {
    if (fresh || this.#tools === undefined) {
      const entry: ToolTable = {
        building: this.toolkit.list({ type: 'tool' }).then(({ tools }) =>
          NameTable.build(
            tools.filter((t) => this.allowed(t)),
            this.options,
          ),
        ),
      };
      this.#tools = entry;
      entry.building.then(
        (table) => {
          entry.built = table;
        },
        () => {
          if (this.#tools === entry) this.#tools = undefined;
        },
      );
    }
    return this.#tools.building;
  }

  /**
   * The tools as `tools/list` sends them, sorted by exposed name: converted once per version of
   * the table, so a page is a slice rather than a rebuild of every tool.
   */
  async listedTools(): Promise<readonly McpTool[]> {
    await this.tools();
    const entry = this.#tools;
    if (entry === undefined) return [];
    entry.listed ??= entry.building.then((table) =>
      table.entries().map(([name, item]) => ({ ...toMcpJson(item.tool), name })),
    );
    return entry.listed;
  }

  /** The current tool table when it is built, so a call need not wait a tick for it. */
  toolsNow(): NameTable<ToolItem> | undefined {
    return this.#tools?.built;
  }

  /** The prompts by exposed name, with the namespaces that could not list theirs (`unlisted`). */
  async prompts(signal?: AbortSignal): Promise<Unlisted<NameTable<PromptItem>>> {
    const { prompts, errors } = await this.toolkit.list({
      type: 'prompt',
      ...(signal === undefined ? {} : { signal }),
    });
    return Object.assign(NameTable.build(prompts, this.options), { unlisted: errors });
  }

  /** The resources by URI, with the namespaces that could not list theirs (`unlisted`). */
  async resources(signal?: AbortSignal): Promise<Unlisted<UriTable<ResourceItem>>> {
    const { resources, errors } = await this.toolkit.list({
      type: 'resource',
      ...(signal === undefined ? {} : { signal }),
    });
    return Object.assign(new UriTable(resources), { unlisted: errors });
  }

  /** Whether the exposed name `name` may be an item of `namespace`, by the naming in force. */
  mayBeOf(name: string, namespace: string): boolean {
    const { separator, transparent } = this.options;
    return (
      transparent === namespace || name.startsWith(`${namespace}${separator ?? DEFAULT_SEPARATOR}`)
    );
  }

  /** The toolkit's resource templates: builtin ones and every connected connector's. */
  templates(): ToolkitResourceTemplate[] {
    return this.toolkit.resourceTemplates();
  }

  /**
   * Why a 2026 call of `item` (exposed as `exposed`) may not be replayed on another instance to
   * resume its input rounds there, or undefined when it may: the tool says it is read-only or
   * idempotent, or `replayTools` lists it.
   */
  replayRefusal(item: ToolItem, exposed: string): string | undefined {
    const hints = item.tool.annotations;
    if (hints?.readOnlyHint === true || hints?.idempotentHint === true) return undefined;
    if (this.options.replayTools?.includes(exposed) === true) return undefined;
    return `tool "${exposed}" is neither readOnlyHint nor idempotentHint, so it is not run again (list it in replayTools to allow that)`;
  }

  allowed(item: ToolItem): boolean {
    const filter = this.options.filter?.[item.namespace];
    if (filter === undefined) return true;
    const tags = item.tool.tags ?? [];
    if (filter.deny?.includes(item.name) === true) return false;
    if (filter.denyTags?.some((tag) => tags.includes(tag)) === true) return false;
    if (filter.allow !== undefined && !filter.allow.includes(item.name)) return false;
    if (filter.allowTags !== undefined && !filter.allowTags.some((tag) => tags.includes(tag)))
      return false;
    return true;
  }

  // -- subscriptions -----------------------------------------------------------------------

  /**
   * Subscribes `session` to the resource it calls `exposed`: a listed resource, or a URI one of
   * an upstream's templates matches. The upstream is asked once, however many sessions subscribe
   * (a per-session server once per session, on the session's own connection).
   */
  async subscribe(
    session: SessionState,
    exposed: string,
    target: SubscriptionTarget,
  ): Promise<void> {
    if (session.subscriptions.has(exposed)) return;
    session.subscriptions.set(exposed, { namespace: target.namespace, uri: target.uri });
    try {
      await this.#upstream.hold(target, this.#upstream.ownerOf(session, target));
    } catch (error) {
      // Refused upstream: the session is not subscribed after all.
      session.subscriptions.delete(exposed);
      throw error;
    }
  }

  async unsubscribe(session: SessionState, exposed: string): Promise<void> {
    const target = session.subscriptions.get(exposed);
    if (target === undefined) return;
    session.subscriptions.delete(exposed);
    await this.#upstream.letGo(target, this.#upstream.ownerOf(session, target));
  }

  /**
   * The resource a client means by `uri`, as `resources/read` takes it: a listed resource, or
   * else a URI one of the templates matches; `undefined` when none is.
   */
  async resolveResource(
    uri: string,
    signal?: AbortSignal,
  ): Promise<SubscriptionTarget | undefined> {
    return this.#resolver(await this.resources(signal))(uri);
  }

  /** Resolves URIs against one listing (and the templates of now). */
  #resolver(table: UriTable<ResourceItem>): (uri: string) => SubscriptionTarget | undefined {
    const templates = this.templates();
    return (uri) => {
      const listed = table.resolve(uri);
      if (listed !== undefined) return { namespace: listed.namespace, uri: listed.uri };
      const namespace = templates.find(({ template }) =>
        matches(template.uriTemplate, uri),
      )?.namespace;
      return namespace === undefined ? undefined : { namespace, uri };
    };
  }

  /**
   * Holds, while a 2026-07-28 client's `subscriptions/listen` stream is open, the upstream
   * subscriptions of the resources its filter names; resolves with the release to call when the
   * stream ends, or `undefined` when `message` asks for no resource updates. A URI no resource
   * names is left out (the client hears nothing of it, as a 2025 client is refused it).
   */
  async listen(message: unknown, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const uris = listenedUris(message);
    if (uris.length === 0) return undefined;
    await this.negotiated;
    // A listing that fails leaves the stream without updates; the stream is still served.
    const table = await this.resources(signal).catch(() => undefined);
    if (table === undefined) return undefined;
    const resolve = this.#resolver(table);
    const targets = new Map<string, SubscriptionTarget>();
    for (const uri of uris) {
      const target = resolve(uri);
      if (target !== undefined) targets.set(uri, target);
    }
    return this.listeners.open(targets);
  }

  // -- notifications -----------------------------------------------------------------------

  #onEvent(event: ToolkitEvent): void {
    switch (event.type) {
      case 'tool_list_changed':
        this.#tools = undefined;
        this.#queue('tools');
        return;
      case 'prompt_list_changed':
        this.#queue('prompts');
        return;
      case 'resource_list_changed':
        this.#queue('resources');
        return;
      case 'state_change':
        // Only gaining or losing a connection changes what is listed; retries do not.
        if (event.state === 'connected') this.#upstream.resubscribeIfReplaced(event.namespace);
        if (event.state === 'connected' || event.state === 'disconnected') {
          this.#tools = undefined;
          this.#queue('tools');
          this.#queue('prompts');
          this.#queue('resources');
        }
        return;
      case 'resource_updated':
        this.#resourceUpdated(event.namespace, event.uri, event.session);
        // 2026 listeners hold shared subscriptions only, never a session's own connection's.
        if (event.session === undefined) this.listeners.updated(event.namespace, event.uri);
        return;
      case 'log_message':
        for (const session of this.#sessions) {
          const { server, initialized } = session;
          if (!initialized || !wantsLog(session, event.level)) continue;
          // From a session's own connection to a per-session server: that session's alone.
          if (event.session !== undefined && event.session !== session.token) continue;
          server
            // eslint-disable-next-line @typescript-eslint/no-deprecated -- 2025-era logging, bridged
            .sendLoggingMessage(upstreamLog(event), server.transport?.sessionId)
            .catch(() => undefined);
        }
        return;
    }
  }

  #resourceUpdated(namespace: string, uri: string, only: string | undefined): void {
    for (const { server, subscriptions, token } of this.#sessions) {
      if (only !== undefined && only !== token) continue;
      for (const [exposed, target] of subscriptions) {
        if (target.namespace === namespace && target.uri === uri)
          server.sendResourceUpdated({ uri: exposed }).catch(() => undefined);
      }
    }
  }

  #queue(kind: ListKind): void {
    this.#pending.add(kind);
    this.#timer ??= setTimeout(() => {
      this.#flush();
    }, this.options.notifyDelayMs ?? 10);
  }

  #flush(): void {
    this.#timer = undefined;
    const kinds = [...this.#pending];
    this.#pending.clear();
    for (const listener of this.#listChangeListeners) listener(kinds);
    for (const { server, initialized } of this.#sessions) {
      if (!initialized) continue;
      for (const kind of kinds) {
        const sent =
          kind === 'tools'
            ? server.sendToolListChanged()
            : kind === 'prompts'
              ? server.sendPromptListChanged()
              : server.sendResourceListChanged();
        sent.catch(() => undefined);
      }
    }
  }
}
