import { randomUUID } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { trace, type Tracer } from '@opentelemetry/api';
import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { NAMESPACE_PATTERN, ToolError, toolId, type Tool } from '@toolplane/toolmodel';
import {
  createLocalRegistry,
  createMcpExecutor,
  createRunner,
  type ProgressListener,
  type Runner,
  type RunResult,
} from '@toolplane/toolrun';
import { throwIfAborted } from './abort.js';
import {
  CALLER_META_KEY,
  createConnector,
  type Connector,
  type ConnectorEvent,
  type ConnectorSource,
  type UpstreamRequestHandler,
} from './connectors/connector.js';
import { inferNamespace } from './connectors/namespace.js';
import type { DefinedTool } from './define-tool.js';
import {
  completePromptArgument,
  validatePrompt,
  type Prompt,
  type RenderedPrompt,
} from './prompts.js';
import { completeTemplate, readTemplate, type ResourceTemplate } from './resource-templates.js';
import { redactingLogger, Secrets } from './secrets.js';
import { validateResource, type Resource } from './resources.js';
import {
  getSession,
  progressReporter,
  runInSession,
  silentLogger,
  type Logger,
  type Session,
} from './session.js';
import { traced, withTraceContext } from './tracing.js';

export { BUILTIN_NAMESPACE, DEFAULT_MAX_CALL_DEPTH, USER_NAMESPACE } from './toolkit-types.js';
export type {
  ToolkitPrompt,
  ToolkitDelegate,
  ToolkitEvent,
  ToolkitOptions,
  ToolkitItem,
  ListRequest,
  ListError,
  ListResult,
  CallOptions,
  ToolkitResourceTemplate,
  CompletionTarget,
  CompleteOptions,
  ConnectorStatus,
  Toolkit,
} from './toolkit-types.js';
import {
  BUILTIN_NAMESPACE,
  DEFAULT_MAX_CALL_DEPTH,
  USER_NAMESPACE,
  type ToolkitEvent,
  type ToolkitOptions,
  type ToolkitItem,
  type ListRequest,
  type ListError,
  type ListResult,
  type CallOptions,
  type ToolkitResourceTemplate,
  type CompletionTarget,
  type CompleteOptions,
  type ConnectorStatus,
  type Toolkit,
  type ToolItem,
  type PromptItem,
  type ResourceItem,
} from './toolkit-types.js';
import {
  checkLimit,
  checkOffset,
  decodeCursor,
  encodeCursor,
  localPromptItem,
  makeSource,
  remotePromptItem,
  resourceItem,
  safeName,
  storeSource,
  type Source,
  wrap,
} from './toolkit-sources.js';

interface ConnectorEntry {
  readonly connector: Connector;
  /** Settles when the first connection attempt after start has. */
  firstAttempt: Promise<void> | undefined;
}

// How deep the call in progress is nested: prompt → tool → prompt recursion ends at maxCallDepth.
const callDepth = new AsyncLocalStorage<number>();

// Caller tokens of calls made through a toolkit: unique in the process, never sent upstream.
const CALLER_PREFIX = `toolkit-${randomUUID()}`;
let callerCount = 0;

const RESERVED = new Set([BUILTIN_NAMESPACE, USER_NAMESPACE]);

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
  // Answerers of calls that brought their own (CallOptions.onUpstreamRequest), by caller token.
  readonly #callAnswerers = new Map<string, UpstreamRequestHandler['handle']>();
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
    this.#upstreamRequests = options.upstreamRequests;
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
      upstreamRequests: this.#answerer,
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
    // A call tags its MCP requests with a caller, so the server's requests during it come back
    // to whoever answers for it; a gateway brings its own, a library call gets one here.
    const given = options.meta?.[CALLER_META_KEY];
    const tagged = typeof given === 'string' || backend !== 'mcp';
    const caller = typeof given === 'string' ? given : `${CALLER_PREFIX}:${++callerCount}`;
    const answerer = options.onUpstreamRequest;
    if (answerer !== undefined) this.#callAnswerers.set(caller, answerer);
    const run = this.#nested(options, call, (onProgress) => {
      const meta = withTraceContext(
        tagged ? options.meta : { ...options.meta, [CALLER_META_KEY]: caller },
      );
      return this.runner.run(id, input, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        // Only asked for when someone listens: progress costs an MCP server a token and messages.
        ...(onProgress === undefined ? {} : { onProgress }),
        ...(meta === undefined ? {} : { meta }),
      });
    });
    const result = await run.catch(this.#rethrowRedacted).finally(() => {
      if (answerer !== undefined) this.#callAnswerers.delete(caller);
    });
    const mcp = result.mcpResult;
    return mcp?.isError === true
      ? { ...result, mcpResult: this.#secrets.redactErrorResult(mcp) }
      : result;
  }

  /**
   * What connectors advertise and ask (read at every connect): the toolkit's handler, with the
   * answerer a call brought taking that call's requests.
   */
  readonly #answerer = (): UpstreamRequestHandler | undefined => {
    const handler = this.#upstreamRequests;
    if (handler === undefined) return undefined;
    return {
      capabilities: handler.capabilities,
      handle: (request, context) => {
        const own = this.#callAnswerers.get(context.caller);
        if (own !== undefined) return own(request, context);
        // The handler of the moment, should it have been replaced since this connection.
        return (this.#upstreamRequests ?? handler).handle(request, context);
      },
    };
  };

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
