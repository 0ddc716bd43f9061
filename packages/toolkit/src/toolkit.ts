import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  CompleteResult,
  GetPromptResult,
  Prompt as McpPrompt,
  Resource as McpResource,
  ResourceTemplate as McpResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { trace, type Tracer } from '@opentelemetry/api';
import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import {
  NAMESPACE_PATTERN,
  ToolError,
  toolId,
  type SchemaValidator,
  type Tool,
} from '@toolplane/toolmodel';
import {
  createLocalRegistry,
  createMcpExecutor,
  createRunner,
  type Middleware,
  type ProgressListener,
  type Runner,
  type RunResult,
} from '@toolplane/toolrun';
import { throwIfAborted } from './abort.js';
import {
  createConnector,
  type Connector,
  type ConnectorEvent,
  type ConnectorOptions,
  type ConnectorSource,
  type UpstreamRequestHandler,
} from './connectors/connector.js';
import { inferNamespace } from './connectors/namespace.js';
import type { DefinedTool } from './define-tool.js';
import {
  completePromptArgument,
  renderPrompt,
  toMcpPrompt,
  validatePrompt,
  type Prompt,
  type RenderedPrompt,
} from './prompts.js';
import { completeTemplate, readTemplate, type ResourceTemplate } from './resource-templates.js';
import { redactingLogger, Secrets } from './secrets.js';
import {
  resource as toResource,
  resourceInfo,
  validateResource,
  type Resource,
  type ResourceInfo,
} from './resources.js';
import {
  getSession,
  progressReporter,
  runInSession,
  silentLogger,
  type Logger,
  type Session,
} from './session.js';
import type { Store } from './store.js';
import { traced, withTraceContext } from './tracing.js';

/** The namespace of tools, prompts and resources registered in code. */
export const BUILTIN_NAMESPACE = 'builtin';
/** The namespace of the prompts and resources kept in the {@link Store}. */
export const USER_NAMESPACE = 'user';
/** How deep prompt → tool → prompt calls may nest unless `maxCallDepth` says otherwise. */
export const DEFAULT_MAX_CALL_DEPTH = 8;

/** A prompt as the toolkit hands it to a {@link ToolkitDelegate}: local or remote alike. */
export interface ToolkitPrompt {
  readonly namespace: string;
  readonly name: string;
  /** The prompt's definition, for builtin and user prompts (remote prompts have none). */
  readonly prompt: Prompt | undefined;
  /** The prompt in MCP form (`prompts/list`). */
  readonly mcp: McpPrompt;
  /** Renders the prompt with `input`: locally, or by `prompts/get` on its server. */
  render(
    input: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<RenderedPrompt>;
}

/** Runs prompts (with a model) and hears what changes; see {@link ToolkitOptions.delegate}. */
export interface ToolkitDelegate {
  /** Runs `prompt` with `input`; its answer is wrapped like a tool's result. */
  call(
    prompt: ToolkitPrompt,
    input: Record<string, unknown>,
    options: { readonly resources: readonly Resource[]; readonly signal?: AbortSignal },
  ): Promise<unknown>;
  /** Hears every change: list changes, resource updates and connector states, by namespace. */
  onEvent?(event: ToolkitEvent): void;
}

/** What changed underneath a toolkit; every event names its namespace. */
export type ToolkitEvent = ConnectorEvent;

/** Options for {@link createToolkit}. */
export interface ToolkitOptions {
  /** Builtin tools (see {@link defineTool}). */
  readonly tools?: readonly DefinedTool[];
  /** Builtin prompts. */
  readonly prompts?: readonly Prompt[];
  /** Builtin resources. */
  readonly resources?: readonly Resource[];
  /** Builtin resource templates (see {@link defineResourceTemplate}). */
  readonly resourceTemplates?: readonly ResourceTemplate[];
  /** Runs prompts and receives events. */
  readonly delegate?: ToolkitDelegate;
  /** Keeps the `user` namespace; the toolkit reads it but never closes it. */
  readonly store?: Store;
  /** Default: the global OpenTelemetry tracer provider's `@toolplane/toolkit` tracer. */
  readonly tracer?: Tracer;
  readonly logger?: Logger;
  /** Limit for prompt → tool → prompt nesting (default {@link DEFAULT_MAX_CALL_DEPTH}). */
  readonly maxCallDepth?: number;
  /** Runner middleware applied to every tool call (timeouts, retries, rate limits, audit…). */
  readonly middleware?: readonly Middleware[];
  /**
   * Validates every tool call's arguments and result against the tool's schemas. Default: the
   * runner's, `createValidator()` from @toolplane/toolmodel (no code generation, so it runs on
   * every runtime); where code generation is allowed, `createAjvValidator()` from
   * @toolplane/validator-ajv validates many times faster.
   */
  readonly validator?: SchemaValidator;
  /**
   * Values never to hand out in clear: masked (as `***`) in connector statuses, events, errors,
   * upstream error results and log lines. The credentials of connector sources (URL user info and
   * credential-named query values, header values, tokens) are added automatically. Pass the
   * {@link Secrets} instance of a configuration to keep adding to it.
   */
  readonly secrets?: Secrets | Iterable<string>;
  /** Defaults for every connector (timeouts, backoff, client info). */
  readonly connectorDefaults?: Omit<ConnectorOptions, 'namespace' | 'onEvent' | 'upstreamRequests'>;
}

/** One tool, prompt or resource a toolkit exposes. */
export type ToolkitItem =
  | {
      readonly type: 'tool';
      readonly namespace: string;
      readonly name: string;
      readonly id: string;
      readonly tool: Tool;
    }
  | {
      readonly type: 'prompt';
      readonly namespace: string;
      readonly name: string;
      readonly prompt: ToolkitPrompt;
    }
  | {
      readonly type: 'resource';
      readonly namespace: string;
      readonly name: string;
      readonly uri: string;
      readonly resource: ResourceInfo;
    };

/** The filters and paging of {@link Toolkit.list}. */
export interface ListRequest {
  readonly namespace?: string;
  readonly type?: 'tool' | 'prompt' | 'resource';
  /** Only items with exactly this name. */
  readonly name?: string;
  /** Page size (1–1000); all items when absent. */
  readonly limit?: number;
  /** Items to skip first; applies with or without `limit`. */
  readonly offset?: number;
  /** A `nextCursor` from an earlier page of the same request. */
  readonly cursor?: string;
  readonly signal?: AbortSignal;
}

/** A source that could not be listed: named, with why. */
export interface ListError {
  readonly namespace: string;
  readonly message: string;
}

/** One page of {@link Toolkit.list}. */
export interface ListResult {
  readonly tools: Extract<ToolkitItem, { type: 'tool' }>[];
  readonly prompts: Extract<ToolkitItem, { type: 'prompt' }>[];
  readonly resources: Extract<ToolkitItem, { type: 'resource' }>[];
  /** How many items match, before paging. */
  readonly count: number;
  readonly offset: number;
  readonly limit: number | undefined;
  readonly nextCursor?: string;
  /** Sources that are down or failed to list; the rest are listed regardless. */
  readonly errors: ListError[];
}

/** Options of {@link Toolkit.call}. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Resources handed to a prompt's delegate. */
  readonly resources?: readonly Resource[];
  /** Receives progress from the tool (for MCP tools, the server's notifications). */
  readonly onProgress?: ProgressListener;
  /** The request's `_meta`; a W3C `traceparent` there parents the call's span. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /**
   * Who is calling, for the code that runs inside the call (builtins, prompt delegates,
   * providers, middleware): what {@link getSession} answers there. Fields not given are
   * inherited from the current session. A server calling on behalf of its clients passes it.
   */
  readonly session?: Partial<Session>;
}

/** A resource template a toolkit exposes: a builtin one or a connector's. */
export interface ToolkitResourceTemplate {
  readonly namespace: string;
  readonly name: string;
  /** The template in MCP form (`resources/templates/list`). */
  readonly template: McpResourceTemplate;
}

/** What {@link Toolkit.complete} completes: a prompt's argument or a resource template's variable. */
export type CompletionTarget =
  | { readonly type: 'prompt'; readonly namespace: string; readonly name: string }
  | {
      readonly type: 'resource_template';
      readonly namespace: string;
      readonly uriTemplate: string;
    };

/** Options of {@link Toolkit.complete}. */
export interface CompleteOptions {
  /** The other arguments (or variables) the client has filled in so far. */
  readonly arguments?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** A registered connector and where it stands. */
export interface ConnectorStatus {
  readonly namespace: string;
  readonly state: Connector['state'];
  /** The stdio server's process ID, while it runs. */
  readonly pid?: number;
  /** Why it is not connected, when it is not. */
  readonly error?: string;
}

/**
 * Tools, prompts and resources from builtins, MCP connectors and the user store, behind one
 * surface; create one with {@link createToolkit}.
 */
export interface Toolkit {
  /** The tool index behind the toolkit, for search and change events. */
  readonly index: ToolIndex;
  /** The runner every tool call goes through. */
  readonly runner: Runner;
  /** Adds or replaces a builtin tool. @throws {ToolError} `invalid_tool`. */
  addTool(tool: DefinedTool): void;
  /** Adds or replaces a builtin prompt. @throws {ToolError} `invalid_prompt`. */
  addPrompt(prompt: Prompt): void;
  /**
   * Adds a builtin resource, or replaces the one at its URI; a replacement is announced as a
   * `resource_updated` event, so subscribed clients of a served toolkit hear of it.
   *
   * @throws {ToolError} `invalid_resource`.
   */
  addResource(resource: Resource): void;
  /**
   * Adds a builtin resource template (see {@link defineResourceTemplate}), or replaces the one of
   * the same name.
   *
   * @throws {ToolError} `invalid_resource` when it was not made by `defineResourceTemplate`.
   */
  addResourceTemplate(template: ResourceTemplate): void;
  /** Removes the builtin tool, prompt, resource or resource template with this name or URI; true when one went. */
  removeBuiltin(nameOrUri: string): boolean;
  /** The builtin resource templates, then those of connected connectors in registration order. */
  resourceTemplates(): ToolkitResourceTemplate[];
  /**
   * Completion values (`completion/complete`) for a prompt's argument or a resource template's
   * variable: builtin and user prompts complete from their input schema (see
   * {@link completePromptArgument}), builtin templates from their `complete` functions, and
   * connectors' from their server (none when it does not offer completions).
   *
   * @throws {ToolError} `not_found` when there is no such prompt or template;
   * `connector_unavailable`; `execution` when the server fails.
   */
  complete(
    target: CompletionTarget,
    argument: { readonly name: string; readonly value: string },
    options?: CompleteOptions,
  ): Promise<CompleteResult['completion']>;
  /**
   * Adds an upstream MCP server under its own namespace (given, or inferred and de-duplicated)
   * and returns that namespace, which is also its ID. Started at once while the toolkit runs.
   *
   * @throws {ToolError} `invalid_config` for a bad source, a reserved namespace or one in use.
   */
  addConnector(source: ConnectorSource, options?: { namespace?: string }): string;
  /** Closes and removes a connector; its items go with it. True when there was one. */
  removeConnector(id: string): Promise<boolean>;
  /** The connectors, in registration order, with their states. */
  connectors(): ConnectorStatus[];
  /**
   * The connector registered under `namespace`, for servers that speak to it directly (resource
   * templates, completions, subscriptions); `undefined` when there is none.
   */
  connector(namespace: string): Connector | undefined;
  /**
   * Sets who answers upstream servers' sampling and elicitation requests (see
   * {@link UpstreamRequestHandler}; `undefined` removes it), e.g. a gateway forwarding each to
   * the session whose call caused it. Connected connectors whose advertised capabilities change
   * reconnect at once (calls in flight on them fail); resolves once they have.
   */
  setUpstreamRequestHandler(
    handler: UpstreamRequestHandler | undefined,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
  /**
   * Hears every {@link ToolkitEvent}, after the delegate's `onEvent`; returns the unsubscribe
   * function. A listener that throws is logged and the others still hear the event.
   */
  onEvent(listener: (event: ToolkitEvent) => void): () => void;
  /**
   * Starts every connector (in parallel; none waits for another) and resolves once `signal`
   * aborts and everything is closed.
   */
  run(options?: { signal?: AbortSignal }): Promise<void>;
  /** Resolves once every connector has connected or failed its first attempt. */
  ready(options?: { signal?: AbortSignal }): Promise<void>;
  /** Closes every connector (and ends their children). Idempotent. */
  close(): Promise<void>;
  /**
   * Finds an item by key: `ns.name` or `ns:name`, `uri#ns`, a bare name (builtins, then
   * connectors in registration order, then user), or a bare URI. A tool beats a prompt of the
   * same name, and a prompt a resource.
   *
   * @throws {ToolError} `not_found`.
   */
  lookup(key: string, options?: { signal?: AbortSignal }): Promise<ToolkitItem>;
  /** Lists items, filtered and paged; a source that is down is reported in `errors`. */
  list(request?: ListRequest): Promise<ListResult>;
  /**
   * Calls a tool (through the runner), a prompt (through the delegate) or reads a resource. A
   * tool's or prompt's answer comes back as a resource: text, data, JSON, or the resource given.
   *
   * @throws {ToolError} `not_found`, `no_delegate`, `call_depth_exceeded`, and the runner's codes.
   */
  call(
    target: string | ToolkitItem,
    input?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Resource | undefined>;
  /** Runs a tool and returns the runner's result (with the raw MCP result for MCP tools). */
  callTool(id: string, input?: Record<string, unknown>, options?: CallOptions): Promise<RunResult>;
  /** Renders a prompt into messages (`prompts/get`). @throws {ToolError} `not_found`. */
  getPrompt(
    key: string,
    input?: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<RenderedPrompt>;
  /**
   * Reads a resource with its contents (`resources/read`): a listed one, else (for a URI, or
   * `uri#ns`) one a builtin resource template matches.
   *
   * @throws {ToolError} `not_found`.
   */
  readResource(key: string, options?: { signal?: AbortSignal }): Promise<Resource>;
}

interface ConnectorEntry {
  readonly connector: Connector;
  /** Settles when the first connection attempt after start has. */
  firstAttempt: Promise<void> | undefined;
}

// How deep the call in progress is nested: prompt → tool → prompt recursion ends at maxCallDepth.
const callDepth = new AsyncLocalStorage<number>();

const RESERVED = new Set([BUILTIN_NAMESPACE, USER_NAMESPACE]);
const MAX_LIST_LIMIT = 1_000;

type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;
type PromptItem = Extract<ToolkitItem, { type: 'prompt' }>;
type ResourceItem = Extract<ToolkitItem, { type: 'resource' }>;

/**
 * Creates a {@link Toolkit}: builtins from `options`, connectors added with `addConnector`, and
 * the `user` namespace from `options.store`. Call `run()` (or `ready()` after adding connectors
 * and running) to bring the upstream servers up.
 */
export function createToolkit(options: ToolkitOptions = {}): Toolkit {
  const toolkit = new ToolkitImpl(options);
  for (const tool of options.tools ?? []) toolkit.addTool(tool);
  for (const prompt of options.prompts ?? []) toolkit.addPrompt(prompt);
  for (const resource of options.resources ?? []) toolkit.addResource(resource);
  for (const template of options.resourceTemplates ?? []) toolkit.addResourceTemplate(template);
  return toolkit;
}

class ToolkitImpl implements Toolkit {
  readonly index: ToolIndex = createIndex();
  readonly runner: Runner;
  readonly #options: ToolkitOptions;
  readonly #tracer: Tracer;
  readonly #logger: Logger;
  readonly #secrets: Secrets;
  readonly #maxDepth: number;
  readonly #local = createLocalRegistry();
  readonly #tools = new Map<string, DefinedTool>();
  readonly #prompts = new Map<string, Prompt>();
  readonly #resources = new Map<string, Resource>();
  readonly #templates = new Map<string, ResourceTemplate>();
  readonly #connectors = new Map<string, ConnectorEntry>();
  #upstreamRequests: UpstreamRequestHandler | undefined;
  readonly #listeners = new Set<(event: ToolkitEvent) => void>();
  readonly #unsubscribeStore: (() => void) | undefined;
  #running: AbortController | undefined;
  #closed = false;

  constructor(options: ToolkitOptions) {
    this.#options = options;
    this.#tracer = options.tracer ?? trace.getTracer('@toolplane/toolkit');
    this.#secrets =
      options.secrets instanceof Secrets ? options.secrets : new Secrets(options.secrets);
    this.#logger =
      options.logger === undefined ? silentLogger : redactingLogger(options.logger, this.#secrets);
    this.#maxDepth = options.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
    this.runner = createRunner({
      index: this.index,
      local: this.#local,
      mcp: createMcpExecutor({ clients: (serverName) => this.#clientOf(serverName) }),
      ...(options.middleware === undefined ? {} : { middleware: options.middleware }),
      ...(options.validator === undefined ? {} : { validator: options.validator }),
    });
    this.#unsubscribeStore = options.store?.subscribe((change) => {
      this.#emit({
        type: change.kind === 'prompt' ? 'prompt_list_changed' : 'resource_list_changed',
        namespace: USER_NAMESPACE,
      });
    });
  }

  // -- builtins ----------------------------------------------------------------------------

  addTool(defined: DefinedTool): void {
    const tool: Tool = { ...defined.tool, namespace: BUILTIN_NAMESPACE };
    const handlerName = toolId(tool);
    this.index.registerTool(
      tool,
      { kind: 'local', local: { name: handlerName } },
      { replace: true },
    );
    this.#local.register(handlerName, defined.handler);
    this.#tools.set(tool.name, defined);
    this.#emit({ type: 'tool_list_changed', namespace: BUILTIN_NAMESPACE });
  }

  addPrompt(prompt: Prompt): void {
    const valid = validatePrompt(prompt);
    this.#prompts.set(valid.name, valid);
    this.#emit({ type: 'prompt_list_changed', namespace: BUILTIN_NAMESPACE });
  }

  addResource(resource: Resource): void {
    const valid = validateResource(resource);
    const replaced = this.#resources.has(valid.uri);
    this.#resources.set(valid.uri, valid);
    this.#emit(
      replaced
        ? { type: 'resource_updated', namespace: BUILTIN_NAMESPACE, uri: valid.uri }
        : { type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE },
    );
  }

  addResourceTemplate(template: ResourceTemplate): void {
    const given: unknown = template;
    if (
      typeof given !== 'object' ||
      given === null ||
      typeof template.match !== 'function' ||
      typeof template.mcp !== 'object'
    ) {
      throw new ToolError(
        'invalid_resource',
        'a resource template must be made by defineResourceTemplate',
      );
    }
    this.#templates.set(template.name, template);
    this.#emit({ type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE });
  }

  resourceTemplates(): ToolkitResourceTemplate[] {
    const templates: ToolkitResourceTemplate[] = [...this.#templates.values()].map((t) => ({
      namespace: BUILTIN_NAMESPACE,
      name: t.name,
      template: t.mcp,
    }));
    for (const { connector } of this.#connectors.values()) {
      if (connector.state !== 'connected') continue;
      for (const template of connector.lists.resourceTemplates) {
        templates.push({ namespace: connector.namespace, name: template.name, template });
      }
    }
    return templates;
  }

  async complete(
    target: CompletionTarget,
    argument: { readonly name: string; readonly value: string },
    options: CompleteOptions = {},
  ): Promise<CompleteResult['completion']> {
    const { signal } = options;
    const context = options.arguments ?? {};
    const label =
      target.type === 'prompt'
        ? `prompt "${target.namespace}:${target.name}"`
        : `resource template "${target.uriTemplate}" of "${target.namespace}"`;
    const missing = () => new ToolError('not_found', `no ${label} to complete`);
    const entry = this.#connectors.get(target.namespace);
    if (entry !== undefined) {
      const client = entry.connector.client;
      if (client === undefined) throw entry.connector.unavailable();
      if (client.getServerCapabilities()?.completions === undefined) return { values: [] };
      const ref =
        target.type === 'prompt'
          ? { type: 'ref/prompt' as const, name: target.name }
          : { type: 'ref/resource' as const, uri: target.uriTemplate };
      try {
        const result = await client.complete(
          { ref, argument, context: { arguments: { ...context } } },
          signal === undefined ? {} : { signal },
        );
        return result.completion;
      } catch (error) {
        throwIfAborted(signal);
        throw new ToolError(
          'execution',
          `MCP server "${target.namespace}" could not complete ${label}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    if (target.type === 'prompt') {
      const item = await this.#sources()
        .find((source) => source.namespace === target.namespace)
        ?.find(target.name, signal);
      if (item?.type !== 'prompt' || item.prompt.prompt === undefined) throw missing();
      return completePromptArgument(item.prompt.prompt, argument.name, argument.value);
    }
    const template =
      target.namespace === BUILTIN_NAMESPACE
        ? [...this.#templates.values()].find((t) => t.uriTemplate === target.uriTemplate)
        : undefined;
    if (template === undefined) throw missing();
    return completeTemplate(template, argument.name, argument.value, { arguments: context });
  }

  removeBuiltin(nameOrUri: string): boolean {
    let removed = false;
    if (this.#tools.delete(nameOrUri)) {
      const id = `${BUILTIN_NAMESPACE}:${nameOrUri}`;
      this.index.unregisterTool(id);
      this.#local.unregister(id);
      this.#emit({ type: 'tool_list_changed', namespace: BUILTIN_NAMESPACE });
      removed = true;
    }
    if (this.#prompts.delete(nameOrUri)) {
      this.#emit({ type: 'prompt_list_changed', namespace: BUILTIN_NAMESPACE });
      removed = true;
    }
    const uri = this.#resources.has(nameOrUri)
      ? nameOrUri
      : [...this.#resources.values()].find((r) => r.name === nameOrUri)?.uri;
    if (uri !== undefined && this.#resources.delete(uri)) {
      this.#emit({ type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE });
      removed = true;
    }
    if (this.#templates.delete(nameOrUri)) {
      this.#emit({ type: 'resource_list_changed', namespace: BUILTIN_NAMESPACE });
      removed = true;
    }
    return removed;
  }

  // -- connectors --------------------------------------------------------------------------

  addConnector(source: ConnectorSource, options: { namespace?: string } = {}): string {
    if (this.#closed) throw new ToolError('invalid_config', 'the toolkit is closed');
    const namespace = this.#claimNamespace(source, options.namespace);
    this.#secrets.addSource(source);
    const connector = createConnector(source, {
      ...this.#options.connectorDefaults,
      namespace,
      upstreamRequests: () => this.#upstreamRequests,
      onEvent: (event) => {
        this.#onConnectorEvent(connector, event);
      },
    });
    const entry: ConnectorEntry = { connector, firstAttempt: undefined };
    this.#connectors.set(namespace, entry);
    if (this.#running !== undefined) this.#start(entry);
    return namespace;
  }

  async removeConnector(id: string): Promise<boolean> {
    const entry = this.#connectors.get(id);
    if (entry === undefined) return false;
    this.#connectors.delete(id);
    this.index.removeNamespace(id);
    await entry.connector.close();
    return true;
  }

  connectors(): ConnectorStatus[] {
    return [...this.#connectors.values()].map(({ connector }) => {
      const { namespace, state, pid, lastError } = connector;
      return {
        namespace,
        state,
        ...(pid === undefined ? {} : { pid }),
        ...(state === 'connected' || lastError === undefined
          ? {}
          : { error: this.#secrets.redact(lastError.message) }),
      };
    });
  }

  connector(namespace: string): Connector | undefined {
    return this.#connectors.get(namespace)?.connector;
  }

  async setUpstreamRequestHandler(
    handler: UpstreamRequestHandler | undefined,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    this.#upstreamRequests = handler;
    await Promise.all(
      [...this.#connectors.values()].map(({ connector }) => connector.renegotiate(options)),
    );
  }

  onEvent(listener: (event: ToolkitEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async run(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#closed) throw new ToolError('invalid_config', 'the toolkit is closed');
    if (this.#running !== undefined)
      throw new ToolError('invalid_config', 'the toolkit is already running');
    const running = new AbortController();
    this.#running = running;
    for (const entry of this.#connectors.values()) this.#start(entry);
    const { signal } = options;
    await new Promise<void>((resolve) => {
      if (signal?.aborted === true || running.signal.aborted) {
        resolve();
        return;
      }
      const stop = (): void => {
        signal?.removeEventListener('abort', stop);
        running.signal.removeEventListener('abort', stop);
        resolve();
      };
      signal?.addEventListener('abort', stop, { once: true });
      running.signal.addEventListener('abort', stop, { once: true });
    });
    await this.close();
  }

  async ready(options: { signal?: AbortSignal } = {}): Promise<void> {
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
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        all,
        new Promise<never>((_, reject) => {
          onAbort = () => {
            reject(cancelled());
          };
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      // A long-lived signal must not collect a listener per wait.
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#running?.abort();
    this.#unsubscribeStore?.();
    await Promise.all([...this.#connectors.values()].map(({ connector }) => connector.close()));
  }

  // -- reading -----------------------------------------------------------------------------

  async lookup(key: string, options: { signal?: AbortSignal } = {}): Promise<ToolkitItem> {
    if (typeof key !== 'string' || key.length === 0) {
      throw new ToolError(
        'not_found',
        'lookup needs a non-empty key: a name, ns:name, ns.name, a URI or uri#ns',
      );
    }
    const sources = this.#sources();
    const byNamespace = new Map(sources.map((source) => [source.namespace, source]));
    // `ns:name` and `ns.name`, scoped to a namespace that exists.
    for (const separator of [':', '.']) {
      const at = key.indexOf(separator);
      const source = at > 0 ? byNamespace.get(key.slice(0, at)) : undefined;
      const found = await source?.find(key.slice(at + 1), options.signal);
      if (found !== undefined) return found;
    }
    // `uri#ns`.
    const hash = key.lastIndexOf('#');
    const scoped = hash > 0 ? byNamespace.get(key.slice(hash + 1)) : undefined;
    const byUri = await scoped?.findUri(key.slice(0, hash), options.signal);
    if (byUri !== undefined) return byUri;
    // A bare name, then a bare URI, in source order.
    for (const source of sources) {
      const found = await source.find(key, options.signal);
      if (found !== undefined) return found;
    }
    for (const source of sources) {
      const found = await source.findUri(key, options.signal);
      if (found !== undefined) return found;
    }
    throw new ToolError(
      'not_found',
      `nothing called ${JSON.stringify(key)} (namespaces: ${sources.map((s) => s.namespace).join(', ')}); use ns:name to pick a namespace`,
    );
  }

  async list(request: ListRequest = {}): Promise<ListResult> {
    const { namespace, type, name, signal } = request;
    const limit = checkLimit(request.limit);
    const offset =
      request.cursor === undefined ? checkOffset(request.offset) : decodeCursor(request.cursor);
    const errors: ListError[] = [];
    for (const { connector } of this.#connectors.values()) {
      if (
        connector.state !== 'connected' &&
        (namespace === undefined || namespace === connector.namespace)
      ) {
        errors.push({ namespace: connector.namespace, message: connector.unavailable().message });
      }
    }
    const sources = this.#sources().filter(
      (s) => namespace === undefined || s.namespace === namespace,
    );
    const gather = async <T extends ToolkitItem>(
      kind: T['type'],
      read: (source: Source) => Promise<T[]> | T[],
    ): Promise<T[]> => {
      if (type !== undefined && type !== kind) return [];
      const items: T[] = [];
      for (const source of sources) {
        try {
          items.push(...(await read(source)));
        } catch (error) {
          if (ToolError.isInstance(error) && error.code === 'cancelled') throw error;
          errors.push({
            namespace: source.namespace,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
      return name === undefined ? items : items.filter((item) => item.name === name);
    };
    const tools = await gather<ToolItem>('tool', (source) => source.tools());
    const prompts = await gather<PromptItem>('prompt', (source) => source.prompts(signal));
    const resources = await gather<ResourceItem>('resource', (source) => source.resources(signal));
    const all: ToolkitItem[] = [...tools, ...prompts, ...resources];
    const end = limit === undefined ? all.length : Math.min(all.length, offset + limit);
    const page = all.slice(offset, end);
    const result: ListResult = {
      tools: page.filter((item): item is ToolItem => item.type === 'tool'),
      prompts: page.filter((item): item is PromptItem => item.type === 'prompt'),
      resources: page.filter((item): item is ResourceItem => item.type === 'resource'),
      count: all.length,
      offset,
      limit,
      errors,
    };
    return end < all.length ? { ...result, nextCursor: encodeCursor(end) } : result;
  }

  // -- calling -----------------------------------------------------------------------------

  async call(
    target: string | ToolkitItem,
    input: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<Resource | undefined> {
    const item = typeof target === 'string' ? await this.lookup(target, options) : target;
    switch (item.type) {
      case 'tool': {
        const result = await this.callTool(item.id, input, options);
        return wrap(item.name, result.structured);
      }
      case 'prompt':
        return this.#callPrompt(item, input, options);
      case 'resource':
        return this.#read(item, options.signal);
    }
  }

  async callTool(
    id: string,
    input: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<RunResult> {
    const at = id.indexOf(':');
    const backend = this.index.hasTool(id) ? this.index.getTool(id).backend?.kind : undefined;
    const call = {
      kind: 'tool',
      id,
      namespace: at > 0 ? id.slice(0, at) : '',
      backend: backend ?? 'unresolved',
    } as const;
    const run = this.#nested(options, call, (onProgress) => {
      const meta = withTraceContext(options.meta);
      return this.runner.run(id, input, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        // Only asked for when someone listens: progress costs an MCP server a token and messages.
        ...(onProgress === undefined ? {} : { onProgress }),
        ...(meta === undefined ? {} : { meta }),
      });
    });
    const result = await run.catch(this.#rethrowRedacted);
    const mcp = result.mcpResult;
    return mcp?.isError === true
      ? { ...result, mcpResult: this.#secrets.redactErrorResult(mcp) }
      : result;
  }

  /** Rethrows `error` with the configured secrets masked in its message and error result. */
  readonly #rethrowRedacted = (error: unknown): never => {
    throw this.#secrets.redactError(error);
  };

  getPrompt(
    key: string,
    input: Record<string, unknown> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<RenderedPrompt> {
    return this.#getPrompt(key, input, options).catch(this.#rethrowRedacted);
  }

  async #getPrompt(
    key: string,
    input: Record<string, unknown>,
    options: { signal?: AbortSignal },
  ): Promise<RenderedPrompt> {
    const item = await this.lookup(key, options);
    if (item.type !== 'prompt')
      throw new ToolError('not_found', `"${key}" is a ${item.type}, not a prompt`);
    return item.prompt.render(input, options);
  }

  readResource(key: string, options: { signal?: AbortSignal } = {}): Promise<Resource> {
    return this.#readResource(key, options).catch(this.#rethrowRedacted);
  }

  async #readResource(key: string, options: { signal?: AbortSignal }): Promise<Resource> {
    let item: ToolkitItem;
    try {
      item = await this.lookup(key, options);
    } catch (error) {
      if (!ToolError.isInstance(error) || error.code !== 'not_found') throw error;
      const found = await this.#readFromTemplate(key, options.signal);
      if (found === undefined) throw error;
      return found;
    }
    if (item.type !== 'resource')
      throw new ToolError('not_found', `"${key}" is a ${item.type}, not a resource`);
    return this.#read(item, options.signal);
  }

  /** Reads a URI (or `uri#builtin`) through the first builtin template that matches it. */
  async #readFromTemplate(key: string, signal?: AbortSignal): Promise<Resource | undefined> {
    const suffix = `#${BUILTIN_NAMESPACE}`;
    const uri = key.endsWith(suffix) ? key.slice(0, -suffix.length) : key;
    for (const template of this.#templates.values()) {
      const found = await readTemplate(template, uri, signal);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  async #callPrompt(
    item: PromptItem,
    input: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Resource | undefined> {
    const delegate = this.#options.delegate;
    if (delegate === undefined) {
      throw new ToolError(
        'no_delegate',
        `prompt "${item.namespace}:${item.name}" needs a delegate to run it; pass createToolkit({ delegate })`,
      );
    }
    const trace = {
      kind: 'prompt',
      id: `${item.namespace}:${item.name}`,
      namespace: item.namespace,
      backend: item.namespace,
    } as const;
    const answer = await this.#nested(options, trace, () =>
      delegate.call(item.prompt, input, {
        resources: options.resources ?? [],
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
    return wrap(item.name, answer);
  }

  /** Runs one call one level deeper, in a span, with the caller's session and progress. */
  async #nested<T>(
    options: CallOptions,
    call: { kind: 'tool' | 'prompt'; id: string; namespace: string; backend: string },
    fn: (onProgress: ProgressListener | undefined) => Promise<T>,
  ): Promise<T> {
    const depth = callDepth.getStore() ?? 0;
    if (depth >= this.#maxDepth) {
      throw new ToolError(
        'call_depth_exceeded',
        `${call.kind} "${call.id}" would nest ${depth + 1} calls deep (limit ${this.#maxDepth}); a prompt or tool is probably calling itself`,
        { toolId: call.id },
      );
    }
    const outer = progressReporter();
    const onProgress: ProgressListener | undefined =
      options.onProgress ??
      (outer === undefined
        ? undefined
        : (event) => {
            outer(event.progress, event.total, event.message);
          });
    const meta = options.meta ?? getSession().meta;
    const run = (): Promise<T> => traced(this.#tracer, { ...call, meta }, () => fn(onProgress));
    // Only code that runs in this process inside the call can ask for its session or call back
    // into the toolkit; an MCP tool without middleware runs none, so its call skips the async
    // context (on Node 20, entering one makes every promise the process creates cost more).
    if (call.backend === 'mcp' && (this.#options.middleware?.length ?? 0) === 0) return run();
    const session: Partial<Session> =
      onProgress === undefined
        ? { ...options.session, meta }
        : {
            ...options.session,
            meta,
            progress: (progress, total, message) => {
              onProgress({
                progress,
                ...(total === undefined ? {} : { total }),
                ...(message === undefined ? {} : { message }),
              });
            },
          };
    return callDepth.run(depth + 1, () => runInSession(session, run));
  }

  async #read(item: ResourceItem, signal: AbortSignal | undefined): Promise<Resource> {
    const source = this.#sources().find((s) => s.namespace === item.namespace);
    const found = await source?.read(item.uri, signal);
    if (found === undefined) {
      throw new ToolError(
        'not_found',
        `resource "${item.uri}" is no longer in namespace "${item.namespace}"`,
      );
    }
    return found;
  }

  // -- sources -----------------------------------------------------------------------------

  /** Every namespace that can answer now, in lookup order: builtin, connected connectors, user. */
  #sources(): Source[] {
    const sources: Source[] = [this.#builtinSource()];
    for (const { connector } of this.#connectors.values()) {
      if (connector.state === 'connected') sources.push(this.#connectorSource(connector));
    }
    if (this.#options.store !== undefined) sources.push(storeSource(this.#options.store));
    return sources;
  }

  #toolItem(namespace: string, name: string): ToolItem | undefined {
    const id = `${namespace}:${name}`;
    try {
      if (!this.index.hasTool(id)) return undefined;
      return { type: 'tool', namespace, name, id, tool: this.index.getTool(id).tool };
    } catch {
      return undefined; // not a valid tool ID, so not a tool
    }
  }

  #builtinSource(): Source {
    const namespace = BUILTIN_NAMESPACE;
    return makeSource({
      namespace,
      tools: () => [...this.#tools.keys()].flatMap((name) => this.#toolItem(namespace, name) ?? []),
      tool: (name) => (this.#tools.has(name) ? this.#toolItem(namespace, name) : undefined),
      prompt: (name) => {
        const found = this.#prompts.get(name);
        return found === undefined ? undefined : localPromptItem(namespace, found);
      },
      prompts: () =>
        [...this.#prompts.values()].map((prompt) => localPromptItem(namespace, prompt)),
      resources: () => [...this.#resources.values()].map((r) => resourceItem(namespace, r)),
      read: (uri) => this.#resources.get(uri),
    });
  }

  #connectorSource(connector: Connector): Source {
    const { namespace } = connector;
    const lists = connector.lists;
    return makeSource({
      namespace,
      tools: () => lists.tools.flatMap((tool) => this.#toolItem(namespace, tool.name) ?? []),
      // The index mirrors the connector's tools, so a direct lookup there is the connector's.
      tool: (name) => this.#toolItem(namespace, name),
      prompt: (name) => {
        const found = lists.prompts.find((mcp) => mcp.name === name);
        return found === undefined ? undefined : remotePromptItem(connector, found);
      },
      prompts: () => lists.prompts.map((mcp) => remotePromptItem(connector, mcp)),
      resources: () => lists.resources.map((r) => resourceItem(namespace, r)),
      read: async (uri, signal) => {
        const client = connector.client;
        if (client === undefined) throw connector.unavailable();
        const result = await client.readResource({ uri }, signal === undefined ? {} : { signal });
        const contents = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
        if (contents === undefined) return undefined;
        const info = lists.resources.find((r) => r.uri === uri);
        const name = info?.name ?? uri.slice(uri.lastIndexOf('/') + 1);
        return validateResource({
          ...contents,
          uri,
          name: safeName(name),
          ...(info?.description === undefined ? {} : { description: info.description }),
        });
      },
    });
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

  #onConnectorEvent(connector: Connector, event: ConnectorEvent): void {
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
      this.#syncTools(connector);
    } else if (event.type === 'state_change') {
      this.index.removeNamespace(namespace);
    }
    this.#emit(event);
  }

  /** Mirrors a connector's tools into the index, skipping (and logging) tools it cannot hold. */
  #syncTools(connector: Connector): void {
    const { namespace } = connector;
    const tools = connector.lists.tools;
    try {
      this.index.registerMcpTools(namespace, tools, { namespace, replace: true, prune: true });
      return;
    } catch (error) {
      this.#logger.warn(
        `MCP server "${namespace}" lists tools toolplane cannot hold; skipping them`,
        {
          error: error instanceof Error ? error.message : String(error),
        },
      );
    }
    this.index.removeNamespace(namespace);
    for (const tool of tools) {
      try {
        this.index.registerMcpTools(namespace, [tool], { namespace, replace: true });
      } catch (error) {
        this.#logger.warn(`skipping tool "${tool.name}" of MCP server "${namespace}"`, {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  #clientOf(serverName: string) {
    const entry = this.#connectors.get(serverName);
    if (entry === undefined) {
      throw new ToolError(
        'connector_unavailable',
        `no connector "${serverName}" (connectors: ${[...this.#connectors.keys()].join(', ') || 'none'})`,
      );
    }
    const client = entry.connector.client;
    if (client === undefined) throw entry.connector.unavailable();
    return client;
  }

  #emit(unmasked: ToolkitEvent): void {
    const event = this.#secrets.redactEvent(unmasked);
    const delegate = this.#options.delegate;
    const listeners: ((event: ToolkitEvent) => void)[] = [...this.#listeners];
    if (delegate?.onEvent !== undefined) listeners.unshift((e) => delegate.onEvent?.(e));
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn('a toolkit event listener failed to handle an event', {
          event: event.type,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}

/** One namespace's items, as lookup and list read them. */
interface Source {
  readonly namespace: string;
  tools(): ToolItem[];
  prompts(signal?: AbortSignal): Promise<PromptItem[]>;
  resources(signal?: AbortSignal): Promise<ResourceItem[]>;
  /** The item called `name`: a tool, else a prompt, else a resource. */
  find(name: string, signal?: AbortSignal): Promise<ToolkitItem | undefined>;
  findUri(uri: string, signal?: AbortSignal): Promise<ResourceItem | undefined>;
  read(uri: string, signal?: AbortSignal): Promise<Resource | undefined>;
}

type Maybe<T> = T | Promise<T>;

function makeSource(parts: {
  namespace: string;
  tools: () => ToolItem[];
  /** The tool called `name`, found directly (lookups must not list every tool). */
  tool: (name: string) => ToolItem | undefined;
  prompts: (signal?: AbortSignal) => Maybe<PromptItem[]>;
  /** The prompt called `name`; default: searched in `prompts`. */
  prompt?: (name: string, signal?: AbortSignal) => Maybe<PromptItem | undefined>;
  resources: (signal?: AbortSignal) => Maybe<ResourceItem[]>;
  read: (uri: string, signal?: AbortSignal) => Maybe<Resource | undefined>;
}): Source {
  const prompts = async (signal?: AbortSignal) => parts.prompts(signal);
  const resources = async (signal?: AbortSignal) => parts.resources(signal);
  const prompt =
    parts.prompt ??
    (async (name: string, signal?: AbortSignal) =>
      (await prompts(signal)).find((item) => item.name === name));
  return {
    namespace: parts.namespace,
    tools: parts.tools,
    prompts,
    resources,
    async find(name, signal) {
      return (
        parts.tool(name) ??
        (await prompt(name, signal)) ??
        (await resources(signal)).find((item) => item.name === name)
      );
    },
    async findUri(uri, signal) {
      return (await resources(signal)).find((item) => item.uri === uri);
    },
    read: async (uri, signal) => parts.read(uri, signal),
  };
}

function storeSource(store: Store): Source {
  const namespace = USER_NAMESPACE;
  const options = (signal?: AbortSignal) => (signal === undefined ? {} : { signal });
  return makeSource({
    namespace,
    tools: () => [],
    tool: () => undefined,
    prompt: async (name, signal) => {
      const found = await store.getPrompt(name, options(signal));
      return found === undefined ? undefined : localPromptItem(namespace, found);
    },
    prompts: async (signal) =>
      (await store.listPrompts(signal === undefined ? {} : { signal })).map((p) =>
        localPromptItem(namespace, p),
      ),
    resources: async (signal) =>
      (await store.listResources(signal === undefined ? {} : { signal })).map((r) =>
        resourceItem(namespace, r),
      ),
    read: (uri, signal) => store.getResource(uri, signal === undefined ? {} : { signal }),
  });
}

function localPromptItem(namespace: string, prompt: Prompt): PromptItem {
  return {
    type: 'prompt',
    namespace,
    name: prompt.name,
    prompt: {
      namespace,
      name: prompt.name,
      prompt,
      mcp: toMcpPrompt(prompt),
      render: (input, options = {}) => renderPrompt(prompt, input, options),
    },
  };
}

function remotePromptItem(connector: Connector, mcp: McpPrompt): PromptItem {
  const { namespace } = connector;
  return {
    type: 'prompt',
    namespace,
    name: mcp.name,
    prompt: {
      namespace,
      name: mcp.name,
      prompt: undefined,
      mcp,
      async render(input, options = {}) {
        const client = connector.client;
        if (client === undefined) throw connector.unavailable();
        // MCP prompt arguments are strings; other values travel as JSON.
        const args = Object.fromEntries(
          Object.entries(input).map(([key, value]) => [
            key,
            typeof value === 'string' ? value : JSON.stringify(value),
          ]),
        );
        const result: GetPromptResult = await client.getPrompt(
          { name: mcp.name, arguments: args },
          options.signal === undefined ? {} : { signal: options.signal },
        );
        const text = result.messages
          .flatMap((message) => (message.content.type === 'text' ? [message.content.text] : []))
          .join('\n\n');
        return { text, messages: result.messages };
      },
    },
  };
}

function resourceItem(namespace: string, resource: ResourceInfo | McpResource): ResourceItem {
  return {
    type: 'resource',
    namespace,
    name: resource.name,
    uri: resource.uri,
    resource: resourceInfo(resource),
  };
}

/** A tool's or prompt's answer as a resource; `undefined` stays `undefined`. */
async function wrap(name: string, value: unknown): Promise<Resource | undefined> {
  if (value === undefined) return undefined;
  return toResource(safeName(name), value);
}

/** Resource names follow the tool-name rule; remote names may not. */
function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 128);
  return cleaned.length === 0 || /^(?:__proto__|constructor|prototype)$/.test(cleaned)
    ? 'resource'
    : cleaned;
}

function checkLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new ToolError(
      'invalid_argument',
      `limit must be an integer from 1 to ${MAX_LIST_LIMIT}, got ${String(limit)}`,
    );
  }
  return limit;
}

function checkOffset(offset: number | undefined): number {
  if (offset === undefined) return 0;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new ToolError(
      'invalid_argument',
      `offset must be a non-negative integer, got ${String(offset)}`,
    );
  }
  return offset;
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string): number {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const offset = (parsed as { o?: unknown } | null)?.o;
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // reported below
  }
  throw new ToolError(
    'invalid_cursor',
    'the cursor is not one this toolkit issued; start again without a cursor',
  );
}
