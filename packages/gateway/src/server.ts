import { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import { randomUUID } from 'node:crypto';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CompleteRequestSchema,
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Implementation,
  type LoggingLevel,
  type Prompt as McpPrompt,
  type Resource as McpResource,
  type ServerNotification,
  type ServerRequest,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  BUILTIN_NAMESPACE,
  CALLER_META_KEY,
  toMcpResource,
  toResourceContents,
  ToolError,
  type Logger,
  type RunResult,
  type Session,
  type Toolkit,
  type ToolkitEvent,
  type CompletionTarget,
  type ToolkitItem,
  type ToolkitResourceTemplate,
  type UpstreamRequestHandler,
} from '@toolplane/toolkit';
import { createValidator, toMcpJson, type SchemaValidator } from '@toolplane/toolmodel';
import { NameTable, UriTable, type NamingOptions } from './names.js';
import { searchTools } from './search-mode.js';
import { GatewayServer } from './gateway-server.js';

/** The SDK's low-level MCP server, as {@link createMcpServer} returns it. */
// eslint-disable-next-line @typescript-eslint/no-deprecated
export type McpServerInstance = SdkServer;

/** Which of a namespace's tools a gateway exposes; deny wins over allow. */
export interface ToolFilter {
  /** Only these tool names (upstream names, not exposed ones). */
  readonly allow?: readonly string[];
  /** Never these tool names. */
  readonly deny?: readonly string[];
  /** Only tools with at least one of these tags. */
  readonly allowTags?: readonly string[];
  /** Never tools with any of these tags. */
  readonly denyTags?: readonly string[];
}

/** Options of {@link createMcpServer}, {@link serveStdio} and {@link serveHttp}. */
export interface GatewayOptions extends NamingOptions {
  /** How the server introduces itself (default `toolplane-gateway`). */
  readonly serverInfo?: Implementation;
  /** Sent to clients in the `initialize` result. */
  readonly instructions?: string;
  /** Items per page of every list (default 500). */
  readonly pageSize?: number;
  /** Tool filters by namespace. */
  readonly filter?: Readonly<Record<string, ToolFilter>>;
  /**
   * `'tools'` (default) lists every tool; `'search'` lists only `search_tools`, `describe_tool`
   * and `call_tool`, for catalogues too large to hand a model whole.
   */
  readonly mode?: 'tools' | 'search';
  /** List changes within this window reach clients as one notification per kind (default 10 ms). */
  readonly notifyDelayMs?: number;
  readonly logger?: Logger;
}

/** The `_meta` key under which a failed tool result carries its structured error. */
export const ERROR_META_KEY = 'io.toolplane/error';

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_SERVER_INFO: Implementation = { name: 'toolplane-gateway', version: '0.0.0' };

type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;
type PromptItem = Extract<ToolkitItem, { type: 'prompt' }>;
type ResourceItem = Extract<ToolkitItem, { type: 'resource' }>;
type ListKind = 'tools' | 'prompts' | 'resources';

interface SessionState {
  readonly server: McpServerInstance;
  initialized: boolean;
  readonly subscriptions: Set<string>;
  /** The least severe level the client wants (`logging/setLevel`); all when unset. */
  logLevel: LoggingLevel | undefined;
}

const LOG_SEVERITY = new Map(LoggingLevelSchema.options.map((level, rank) => [level, rank]));

/** Whether a session that asked for `wanted` and above takes a message at `level`. */
function wantsLog(session: SessionState, level: LoggingLevel): boolean {
  const wanted = session.logLevel;
  return wanted === undefined || (LOG_SEVERITY.get(level) ?? 0) >= (LOG_SEVERITY.get(wanted) ?? 0);
}

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

// The sessions' tool calls in flight, by the caller token their upstream calls carry. Tokens are
// unique across every gateway in the process (a random prefix, then a count), so one handler
// serves them all; they never leave the process.
const callers = new Map<string, GatewayCall>();
const CALLER_PREFIX = randomUUID();
let callerCount = 0;

/** A session's tool call in flight. */
interface GatewayCall {
  readonly server: McpServerInstance;
  readonly extra: CallExtra;
}

/**
 * Forwards an upstream's sampling or elicitation request to the session whose call caused it,
 * on that call's own response stream, and its answer back.
 */
const forwardUpstreamRequests: UpstreamRequestHandler = {
  capabilities: { sampling: true, elicitation: true },
  async handle(request, { namespace, caller, signal }) {
    const call = callers.get(caller);
    if (call === undefined) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${request.method} from "${namespace}" belongs to a call that has ended`,
      );
    }
    const capabilities = call.server.getClientCapabilities();
    const supported =
      request.method === 'sampling/createMessage'
        ? capabilities?.sampling !== undefined
        : capabilities?.elicitation !== undefined;
    if (!supported) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `the client that made this call does not support ${request.method}`,
      );
    }
    return request.method === 'sampling/createMessage'
      ? call.extra.sendRequest(request, CreateMessageResultSchema, { signal })
      : call.extra.sendRequest(request, ElicitResultSchema, { signal });
  },
};

/**
 * The {@link Session} of a session's tool call: who called, and requests to that client on the
 * call's own response stream, cancelled with the call.
 */
function callerSession(
  server: McpServerInstance,
  extra: CallExtra,
  parts: Pick<Session, 'log'>,
): Partial<Session> {
  const capabilities = server.getClientCapabilities();
  // Cancelled with the call, and by the builtin's own signal when it gives one.
  const ask = async <T>(
    method: string,
    options: { signal?: AbortSignal } | undefined,
    send: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> => {
    const signal =
      options?.signal === undefined
        ? extra.signal
        : AbortSignal.any([extra.signal, options.signal]);
    try {
      return await send(signal);
    } catch (error) {
      if (signal.aborted) {
        throw new ToolError('cancelled', `${method} was cancelled`, { cause: signal.reason });
      }
      if (ToolError.isInstance(error)) throw error;
      throw new ToolError(
        'execution',
        `the client failed ${method}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  };
  return {
    id: extra.sessionId,
    clientInfo: server.getClientVersion(),
    capabilities,
    log: parts.log,
    elicit: (params, options) => {
      const elicitation = capabilities?.elicitation;
      const mode = params.mode ?? 'form';
      const supported =
        elicitation !== undefined &&
        (mode === 'url'
          ? elicitation.url !== undefined
          : elicitation.form !== undefined || elicitation.url === undefined);
      if (!supported) return Promise.reject(notSupported(`${mode} elicitation`));
      return ask('elicitation/create', options, async (signal) => {
        const answer = await extra.sendRequest(
          { method: 'elicitation/create', params },
          ElicitResultSchema,
          { signal },
        );
        if (answer.action === 'accept' && 'requestedSchema' in params) {
          checkElicited(params.requestedSchema, answer.content ?? {});
        }
        return answer;
      });
    },
    createMessage: (params, options) => {
      const sampling = capabilities?.sampling;
      const withTools = params.tools !== undefined || params.toolChoice !== undefined;
      if (sampling === undefined) return Promise.reject(notSupported('sampling'));
      if (withTools && sampling.tools === undefined) {
        return Promise.reject(notSupported('sampling with tools'));
      }
      return ask('sampling/createMessage', options, (signal) =>
        withTools
          ? extra.sendRequest(
              { method: 'sampling/createMessage', params },
              CreateMessageResultWithToolsSchema,
              { signal },
            )
          : extra.sendRequest(
              { method: 'sampling/createMessage', params },
              CreateMessageResultSchema,
              { signal },
            ),
      );
    },
  };
}

// Created on first use and shared: a validator caches prepared schemas.
let elicitValidator: SchemaValidator | undefined;

/** Refuses an accepted elicitation whose content breaks the schema the builtin asked with. */
function checkElicited(schema: object, content: unknown): void {
  const validator = (elicitValidator ??= createValidator());
  const result = validator.validate(schema as Record<string, unknown>, content);
  if (result.valid) return;
  const first = result.errors[0];
  throw new ToolError(
    'validation',
    `the client's elicitation answer does not match the requested schema${first === undefined ? '' : `: ${first.path || '/'} ${first.message}`}`,
    { errors: result.errors },
  );
}

function notSupported(feature: string): ToolError {
  return new ToolError(
    'no_delegate',
    `the calling client does not support ${feature} (it did not declare the capability)`,
  );
}

/** The tool table of a {@link GatewayHub}: `built` is set once `building` has resolved. */
interface ToolTable {
  readonly building: Promise<NameTable<ToolItem>>;
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
  readonly options: GatewayOptions;
  readonly #sessions = new Set<SessionState>();
  readonly #unsubscribe: (() => void)[];
  // The tool table, being built or built, until something changes.
  #tools: ToolTable | undefined;
  #negotiated = false;
  #pending = new Set<ListKind>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  // Upstream subscriptions, counted across sessions, by namespace and upstream URI.
  readonly #upstreamSubscriptions = new Map<string, number>();

  /** Resolves once upstream servers know they may ask the sessions for sampling and elicitation. */
  readonly negotiated: Promise<void>;

  constructor(toolkit: Toolkit, options: GatewayOptions = {}) {
    this.toolkit = toolkit;
    this.options = options;
    this.negotiated = toolkit
      .setUpstreamRequestHandler(forwardUpstreamRequests)
      .catch(() => {
        // A connector that failed to reconnect keeps retrying on its own.
      })
      .then(() => {
        this.#negotiated = true;
      });
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

  /** Whether {@link GatewayHub.negotiated} has settled, so a handler need not wait a tick for it. */
  get isNegotiated(): boolean {
    return this.#negotiated;
  }

  /** How many sessions are attached. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  attach(server: McpServerInstance): SessionState {
    const session: SessionState = {
      server,
      initialized: false,
      subscriptions: new Set(),
      logLevel: undefined,
    };
    this.#sessions.add(session);
    return session;
  }

  detach(session: SessionState): void {
    if (!this.#sessions.delete(session)) return;
    for (const uri of session.subscriptions) void this.unsubscribe(session, uri);
  }

  dispose(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    clearTimeout(this.#timer);
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

  /** The current tool table when it is built, so a call need not wait a tick for it. */
  toolsNow(): NameTable<ToolItem> | undefined {
    return this.#tools?.built;
  }

  async prompts(signal?: AbortSignal): Promise<NameTable<PromptItem>> {
    const { prompts } = await this.toolkit.list({
      type: 'prompt',
      ...(signal === undefined ? {} : { signal }),
    });
    return NameTable.build(prompts, this.options);
  }

  async resources(signal?: AbortSignal): Promise<UriTable<ResourceItem>> {
    const { resources } = await this.toolkit.list({
      type: 'resource',
      ...(signal === undefined ? {} : { signal }),
    });
    return new UriTable(resources);
  }

  /** The toolkit's resource templates: builtin ones and every connected connector's. */
  templates(): ToolkitResourceTemplate[] {
    return this.toolkit.resourceTemplates();
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

  async subscribe(session: SessionState, exposed: string, item: ResourceItem): Promise<void> {
    if (session.subscriptions.has(exposed)) return;
    session.subscriptions.add(exposed);
    const key = `${item.namespace}\u0000${item.uri}`;
    const count = this.#upstreamSubscriptions.get(key) ?? 0;
    this.#upstreamSubscriptions.set(key, count + 1);
    const client = this.toolkit.connector(item.namespace)?.client;
    if (count === 0 && client?.getServerCapabilities()?.resources?.subscribe === true) {
      await client.subscribeResource({ uri: item.uri });
    }
  }

  async unsubscribe(session: SessionState, exposed: string): Promise<void> {
    if (!session.subscriptions.delete(exposed)) return;
    const item = (await this.resources().catch(() => undefined))?.resolve(exposed);
    if (item === undefined) return;
    const key = `${item.namespace}\u0000${item.uri}`;
    const count = (this.#upstreamSubscriptions.get(key) ?? 1) - 1;
    if (count > 0) {
      this.#upstreamSubscriptions.set(key, count);
      return;
    }
    this.#upstreamSubscriptions.delete(key);
    const client = this.toolkit.connector(item.namespace)?.client;
    if (client?.getServerCapabilities()?.resources?.subscribe === true) {
      await client.unsubscribeResource({ uri: item.uri }).catch(() => undefined);
    }
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
        if (event.state === 'connected' || event.state === 'disconnected') {
          this.#tools = undefined;
          this.#queue('tools');
          this.#queue('prompts');
          this.#queue('resources');
        }
        return;
      case 'resource_updated':
        void this.#resourceUpdated(event.namespace, event.uri);
        return;
      case 'log_message':
        for (const session of this.#sessions) {
          const { server, initialized } = session;
          if (!initialized || !wantsLog(session, event.level)) continue;
          const logger =
            event.logger === undefined ? event.namespace : `${event.namespace}/${event.logger}`;
          server
            .sendLoggingMessage(
              { level: event.level, logger, data: event.data },
              server.transport?.sessionId,
            )
            .catch(() => undefined);
        }
        return;
    }
  }

  async #resourceUpdated(namespace: string, uri: string): Promise<void> {
    const table = await this.resources().catch(() => undefined);
    const exposed = table?.uriOf({ namespace, uri }) ?? uri;
    for (const { server, subscriptions } of this.#sessions) {
      if (subscriptions.has(exposed))
        server.sendResourceUpdated({ uri: exposed }).catch(() => undefined);
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

/**
 * Creates an MCP server (the SDK's low-level `Server`) that serves `toolkit`: its tools, prompts
 * and resources under exposed names (see {@link NameTable}), calls with progress and
 * cancellation passed through, upstream log messages and list changes relayed, and an upstream's
 * sampling and elicitation requests during a call forwarded to the session that made it. Connect
 * it to any transport; {@link serveStdio} and {@link serveHttp} do that for you (and wait for
 * connected upstreams to reconnect advertising sampling and elicitation, which this does in the
 * background).
 *
 * The toolkit stays the caller's: closing the server never closes it.
 */
export function createMcpServer(toolkit: Toolkit, options: GatewayOptions = {}): McpServerInstance {
  return createSingleSession(toolkit, options).server;
}

/**
 * {@link createMcpServer} with its hub, so a caller can wait for `hub.negotiated`.
 *
 * @internal
 */
export function createSingleSession(
  toolkit: Toolkit,
  options: GatewayOptions,
): { server: McpServerInstance; hub: GatewayHub } {
  const hub = new GatewayHub(toolkit, options);
  const server = createSessionServer(hub);
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    hub.dispose();
  };
  return { server, hub };
}

/**
 * One session's server on a shared hub.
 *
 * @internal
 */
export function createSessionServer(hub: GatewayHub): McpServerInstance {
  const { toolkit, options } = hub;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const server = new GatewayServer(options.serverInfo ?? DEFAULT_SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
    },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const session = hub.attach(server);
  // Every handler below first waits for upstreams to have reconnected advertising sampling and
  // elicitation (at once after the first time), so none sees them half-way.
  server.oninitialized = () => {
    session.initialized = true;
  };
  const previousClose = server.onclose;
  server.onclose = () => {
    previousClose?.();
    hub.detach(session);
  };
  // Kept per session here rather than by the SDK, so builtins' log messages honour it too.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    session.logLevel = request.params.level;
    return {};
  });

  // -- tools -------------------------------------------------------------------------------

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    await hub.negotiated;
    if (options.mode === 'search') return { tools: searchTools.map((t) => t.tool) };
    const table = await hub.tools();
    const tools: McpTool[] = table
      .entries()
      .map(([name, item]) => ({ ...toMcpJson(item.tool), name }));
    const { items, nextCursor } = page(tools, (t) => t.name, request.params?.cursor, pageSize);
    return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
  });

  server.setToolCallHandler(async (request, extra) => {
    if (!hub.isNegotiated) await hub.negotiated;
    const { name, arguments: args = {} } = request.params;
    const { progressToken, ...meta } = request.params._meta ?? {};
    // Progress and log messages are sent before the result they precede, never after it.
    let sent: Promise<unknown> | undefined;
    const notify = (notification: ServerNotification): Promise<void> => {
      const sending = extra.sendNotification(notification).catch(() => undefined);
      sent = sent === undefined ? sending : Promise.all([sent, sending]);
      return sending;
    };
    const onProgress =
      progressToken === undefined
        ? undefined
        : (event: { progress: number; total?: number; message?: string }) => {
            void notify({ method: 'notifications/progress', params: { progressToken, ...event } });
          };
    const call = async (item: ToolItem, input: Record<string, unknown>) => {
      // Upstream sampling and elicitation during this call come back to this session.
      const caller = `${CALLER_PREFIX}:${++callerCount}`;
      callers.set(caller, { server, extra });
      try {
        // Builtins and prompt delegates see who called, and talk to them (getSession()).
        const calling = callerSession(server, extra, {
          log: (level, data, logger) =>
            wantsLog(session, level)
              ? notify({
                  method: 'notifications/message',
                  params: { level, data, ...(logger === undefined ? {} : { logger }) },
                })
              : Promise.resolve(),
        });
        const result = await toolkit.callTool(item.id, input, {
          signal: extra.signal,
          meta: { ...meta, [CALLER_META_KEY]: caller },
          session: calling,
          ...(onProgress === undefined ? {} : { onProgress }),
        });
        if (sent !== undefined) await sent;
        return toCallToolResult(result);
      } catch (error) {
        if (sent !== undefined) await sent;
        return errorResult(error, item);
      } finally {
        callers.delete(caller);
      }
    };
    if (options.mode === 'search') {
      const tool = searchTools.find((t) => t.tool.name === name);
      if (tool === undefined) throw unknownTool(name);
      return tool.run(hub, args, { call, signal: extra.signal });
    }
    const table = hub.toolsNow() ?? (await hub.tools());
    const item = table.resolve(name) ?? (await hub.tools(true)).resolve(name);
    if (item === undefined) throw unknownTool(name);
    return call(item, args);
  });

  // -- prompts -----------------------------------------------------------------------------

  server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
    await hub.negotiated;
    const table = await hub.prompts(extra.signal);
    const prompts: McpPrompt[] = table
      .entries()
      .map(([name, item]) => ({ ...item.prompt.mcp, name }));
    const { items, nextCursor } = page(prompts, (p) => p.name, request.params?.cursor, pageSize);
    return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    await hub.negotiated;
    const { name, arguments: args = {} } = request.params;
    const item = (await hub.prompts(extra.signal)).resolve(name);
    if (item === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `no prompt "${name}"; prompts/list names them`);
    }
    try {
      const rendered = await item.prompt.render(args, { signal: extra.signal });
      const description = item.prompt.mcp.description;
      return {
        ...(description === undefined ? {} : { description }),
        messages:
          rendered.messages.length > 0
            ? rendered.messages
            : [{ role: 'user' as const, content: { type: 'text' as const, text: rendered.text } }],
      };
    } catch (error) {
      throw protocolError(error);
    }
  });

  // -- resources ---------------------------------------------------------------------------

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    await hub.negotiated;
    const { resources } = await toolkit.list({ type: 'resource', signal: extra.signal });
    const table = new UriTable(resources);
    const listed: McpResource[] = resources.flatMap((item) => {
      const uri = table.uriOf(item);
      return uri === undefined ? [] : [{ ...toMcpResource(item.resource), uri }];
    });
    listed.sort((a, b) => compare(a.uri, b.uri));
    const { items, nextCursor } = page(listed, (r) => r.uri, request.params?.cursor, pageSize);
    return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request) => {
    await hub.negotiated;
    const templates = NameTable.build(hub.templates(), options)
      .entries()
      .map(([name, { template }]) => ({ ...template, name }));
    const { items, nextCursor } = page(templates, (t) => t.name, request.params?.cursor, pageSize);
    return nextCursor === undefined
      ? { resourceTemplates: items }
      : { resourceTemplates: items, nextCursor };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    await hub.negotiated;
    const { uri } = request.params;
    const item = (await hub.resources(extra.signal)).resolve(uri);
    if (item !== undefined) {
      try {
        const resource = await toolkit.readResource(`${item.uri}#${item.namespace}`, {
          signal: extra.signal,
        });
        return { contents: [{ ...toResourceContents(resource), uri }] };
      } catch (error) {
        throw protocolError(error);
      }
    }
    // A URI no list names may still be one of the templates'.
    const match = hub.templates().find(({ template }) => matches(template.uriTemplate, uri));
    const client = match === undefined ? undefined : toolkit.connector(match.namespace)?.client;
    try {
      if (match?.namespace === BUILTIN_NAMESPACE) {
        const resource = await toolkit.readResource(`${uri}#${BUILTIN_NAMESPACE}`, {
          signal: extra.signal,
        });
        return { contents: [toResourceContents(resource)] };
      }
      if (client !== undefined) return await client.readResource({ uri }, { signal: extra.signal });
    } catch (error) {
      throw protocolError(error);
    }
    throw new McpError(
      ErrorCode.InvalidParams,
      `no resource "${uri}"; resources/list and resources/templates/list name them`,
    );
  });

  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await hub.negotiated;
    const { uri } = request.params;
    const item = (await hub.resources(extra.signal)).resolve(uri);
    if (item === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `no resource "${uri}" to subscribe to`);
    }
    await hub.subscribe(session, uri, item).catch((error: unknown) => {
      throw protocolError(error);
    });
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await hub.unsubscribe(session, request.params.uri);
    return {};
  });

  // -- completions -------------------------------------------------------------------------

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    await hub.negotiated;
    const { ref, argument, context } = request.params;
    let target: CompletionTarget;
    if (ref.type === 'ref/prompt') {
      const item = (await hub.prompts(extra.signal)).resolve(ref.name);
      if (item === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `no prompt "${ref.name}" to complete`);
      }
      target = { type: 'prompt', namespace: item.namespace, name: item.name };
    } else {
      const found = hub.templates().find(({ template }) => template.uriTemplate === ref.uri);
      if (found === undefined) return { completion: { values: [] } };
      target = { type: 'resource_template', namespace: found.namespace, uriTemplate: ref.uri };
    }
    try {
      const completion = await toolkit.complete(target, argument, {
        signal: extra.signal,
        ...(context?.arguments === undefined ? {} : { arguments: context.arguments }),
      });
      return { completion };
    } catch (error) {
      throw protocolError(error);
    }
  });

  return server;
}

/** One page of `items` (sorted by `key`) after the cursor's key. */
function page<T>(
  items: T[],
  key: (item: T) => string,
  cursor: string | undefined,
  size: number,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    // Keyset paging: items added or removed between pages never shift the ones after.
    start = items.findIndex((item) => compare(key(item), after) > 0);
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + size);
  const last = slice.at(-1);
  return start + size < items.length && last !== undefined
    ? { items: slice, nextCursor: Buffer.from(key(last)).toString('base64url') }
    : { items: slice };
}

function decodeCursor(cursor: string): string {
  const after = Buffer.from(cursor, 'base64url').toString('utf8');
  if (after.length === 0 || Buffer.from(after).toString('base64url') !== cursor) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'the cursor is not one this server issued; list again without a cursor',
    );
  }
  return after;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function matches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

function unknownTool(name: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `no tool "${name}"; tools/list names them`);
}

/** A toolkit failure outside a tool call as a JSON-RPC error. */
function protocolError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (ToolError.isInstance(error)) {
    const code =
      error.code === 'not_found' ||
      error.code === 'invalid_argument' ||
      error.code === 'validation' ||
      error.code === 'invalid_prompt'
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError;
    return new McpError(code, error.message, { code: error.code });
  }
  return new McpError(
    ErrorCode.InternalError,
    error instanceof Error ? error.message : String(error),
  );
}

/** A successful run as a `tools/call` result: an MCP tool's result as it came, else rendered. */
export function toCallToolResult(run: RunResult): CallToolResult {
  if (run.mcpResult !== undefined) return run.mcpResult;
  const value = run.structured;
  if (value === undefined) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const text = JSON.stringify(value);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { content: [{ type: 'text', text }], structuredContent: value as Record<string, unknown> }
    : { content: [{ type: 'text', text }] };
}

/**
 * A failed call as a `tools/call` result with `isError: true`. An upstream's own error result (the
 * cause of the failure) passes through as it was sent, content, `structuredContent` and `_meta`
 * alike, with toolplane's structured error (`code`, `message`, `toolId`) added under
 * {@link ERROR_META_KEY} in `_meta`. Any other failure is told in a text block and there, and as
 * `structuredContent.error` for tools without an output schema (one binds `structuredContent`).
 */
export function errorResult(error: unknown, item: ToolItem): CallToolResult {
  const failure = ToolError.isInstance(error)
    ? error
    : new ToolError('internal', error instanceof Error ? error.message : String(error), {
        cause: error,
        toolId: item.id,
      });
  const structured = {
    code: failure.code,
    message: failure.message,
    toolId: failure.toolId ?? item.id,
  };
  const upstream = upstreamErrorResult(failure);
  if (upstream !== undefined) {
    return {
      ...upstream,
      isError: true,
      _meta: { ...upstream._meta, [ERROR_META_KEY]: structured },
    };
  }
  return {
    isError: true,
    content: [{ type: 'text' as const, text: `${failure.code}: ${failure.message}` }],
    ...(item.tool.outputSchema === undefined ? { structuredContent: { error: structured } } : {}),
    _meta: { [ERROR_META_KEY]: structured },
  };
}

/** The upstream error result a failure carries in its cause chain (the runner wraps it). */
function upstreamErrorResult(error: Error): CallToolResult | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 8 && cause !== undefined; depth++) {
    const result = cause as Partial<CallToolResult>;
    if (result.isError === true && Array.isArray(result.content)) return result as CallToolResult;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return undefined;
}
