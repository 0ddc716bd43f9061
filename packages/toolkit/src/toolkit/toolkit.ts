import type { CompleteResult } from '@modelcontextprotocol/client';
import { trace } from '@opentelemetry/api';
import {
  createIndex,
  isLearningSearcher,
  type LearningSearcher,
  type SearchPage,
  type ToolIndex,
} from '@toolplane/toolindex';
import { checkCount, ToolError } from '@toolplane/toolmodel';
import {
  createLocalRegistry,
  createMcpExecutor,
  createRunner,
  type Middleware,
  type Runner,
  type RunResult,
} from '@toolplane/toolrun';
import {
  type ToolkitConnector,
  type ConnectorSource,
  type UpstreamRequestHandler,
} from '../connectors/connector.js';
import type { DefinedTool } from '../define-tool.js';
import { type Prompt, type RenderedPrompt } from '../prompts/prompts.js';
import { type ResourceTemplate } from '../resources/resource-templates.js';
import { redactingLogger, Secrets } from '../secrets.js';
import { type Resource } from '../resources/resources.js';
import type { LiveResource } from '../resources/live-resources.js';
import { silentLogger, type Logger } from '../session.js';
import { toolkitApproval } from '../approval/elicit-approval.js';
import { KeptResults } from '../resources/call-resources.js';
import { Builtins } from './builtins.js';
import { answererOf } from './calling.js';
import { ToolkitCalls } from './calls.js';
import { completeIn } from './complete.js';
import { Connectors } from '../connectors/registry.js';
import { listIn, lookupIn } from './lookup.js';
import { getPromptIn, readResourceIn, type ReadingParts } from './reading.js';

export { BUILTIN_NAMESPACE, DEFAULT_MAX_CALL_DEPTH, USER_NAMESPACE } from './types.js';
// Types tests and the package index take from here; the rest are in types.ts.
export type { ConnectionMode, Toolkit, ToolkitEvent, ToolkitOptions } from './types.js';
import {
  DEFAULT_MAX_CALL_DEPTH,
  USER_NAMESPACE,
  type AddConnectorOptions,
  type RemoveConnectorOptions,
  type BuiltinKind,
  type ReadOptions,
  type ToolkitEvent,
  type ToolkitOptions,
  type ToolkitItem,
  type ListRequest,
  type ListResult,
  type CallOptions,
  type CallResult,
  type ToolkitResourceTemplate,
  type CompletionTarget,
  type CompleteOptions,
  type ConnectorStatus,
  type Toolkit,
  type ToolkitSearchOptions,
} from './types.js';
import { EventFanout } from './event-fanout.js';
import { storeSource, type Source } from './sources.js';
import { TOOLKIT_HOST, type ToolkitHost } from './host.js';
import {
  refuseUnknownMethodOptions,
  refuseUnknownToolkitOptions,
  refusedMethodOptions,
} from './unknown-options.js';
import { refusalFor, startPinning, type ToolkitPinning } from '../pinning/toolkit-pinning.js';

/**
 * Creates a {@link Toolkit}: builtins from `options`, connectors added with `addConnector`, and
 * the `user` namespace from `options.store`. Call `run()` (or `ready()` after adding connectors
 * and running) to bring the upstream servers up.
 *
 * @throws {ToolError} `invalid_argument` for an option key it does not know (from JavaScript,
 * where the type cannot stop one); `invalid_config` for a `maxCallDepth` that is not a whole
 * number of 1 or more.
 */
export function createToolkit(options: ToolkitOptions = {}): Toolkit {
  refuseUnknownToolkitOptions(options);
  const depth = options.maxCallDepth;
  // NaN ended no recursion (a prompt calling itself ran out of memory); 0 refused every call.
  if (depth !== undefined) {
    checkCount(depth, 'createToolkit: maxCallDepth', { code: 'invalid_config' });
  }
  const toolkit = new ToolkitImpl(options);
  for (const tool of options.tools ?? []) toolkit.addTool(tool);
  for (const prompt of options.prompts ?? []) toolkit.addPrompt(prompt);
  for (const resource of options.resources ?? []) toolkit.addResource(resource);
  for (const template of options.resourceTemplates ?? []) toolkit.addResourceTemplate(template);
  return toolkit;
}

/**
 * The host hooks of a toolkit made by {@link createToolkit}, for the server that serves it (see
 * {@link ToolkitHost}).
 *
 * @throws {ToolError} `invalid_argument` for a `Toolkit` that was not made by `createToolkit`.
 */
export function toolkitHost(toolkit: Toolkit): ToolkitHost {
  const host = (toolkit as Partial<Record<typeof TOOLKIT_HOST, ToolkitHost>>)[TOOLKIT_HOST];
  if (host !== undefined) return host;
  throw new ToolError(
    'invalid_argument',
    'toolkitHost() takes a toolkit made by createToolkit(); this one has no host hooks',
  );
}

class ToolkitImpl implements Toolkit {
  readonly index: ToolIndex;
  readonly runner: Runner;
  readonly #learner: LearningSearcher | undefined;
  readonly #options: ToolkitOptions;
  // Observers outermost (they see refused and held calls too), then the approval policy (a
  // refused call runs no other middleware), then the caller's.
  readonly #middleware: readonly Middleware[];
  readonly #logger: Logger;
  readonly #secrets: Secrets;
  readonly #builtins: Builtins;
  readonly #connectors: Connectors;
  readonly #reading: ReadingParts;
  readonly #calls: ToolkitCalls;
  #upstreamRequests: UpstreamRequestHandler | undefined;
  // Answerers of calls that brought their own (CallOptions.onUpstreamRequest), by caller token.
  readonly #callAnswerers = new Map<string, UpstreamRequestHandler['handle']>();
  readonly #kept = new KeptResults();
  readonly #events: EventFanout;
  readonly #unsubscribeStore: (() => void) | undefined;
  readonly #pinning: ToolkitPinning | undefined;
  #running: AbortController | undefined;
  #closed = false;
  // What toolkitHost() hands a gateway.
  readonly [TOOLKIT_HOST]: ToolkitHost = {
    setUpstreamRequestHandler: async (handler, options = {}) => {
      this.#upstreamRequests = handler;
      await this.#connectors.renegotiate(options);
    },
    rootsChanged: (caller) => {
      this.#connectors.rootsChanged(caller);
    },
    connectionOf: (namespace) => this.#connectors.connectionOf(namespace),
    subscribeResource: (namespace, uri, options = {}) =>
      this.#connectors.subscribe(namespace, uri, options.sessionKey),
    unsubscribeResource: (namespace, uri, options = {}) =>
      this.#connectors.unsubscribe(namespace, uri, options.sessionKey),
    endSession: (session) => this.#connectors.endSession(session),
    pinRefusal: (id) => refusalFor(this.#pinning, (ns) => this.#connectors.get(ns), id),
  };
  // The deprecated Toolkit members: the same hooks under their old place, for one minor.
  readonly setUpstreamRequestHandler = this[TOOLKIT_HOST].setUpstreamRequestHandler;
  readonly rootsChanged = this[TOOLKIT_HOST].rootsChanged;
  readonly connectionOf = this[TOOLKIT_HOST].connectionOf;
  readonly subscribeResource = this[TOOLKIT_HOST].subscribeResource;
  readonly unsubscribeResource = this[TOOLKIT_HOST].unsubscribeResource;
  readonly endSession = this[TOOLKIT_HOST].endSession;

  constructor(options: ToolkitOptions) {
    this.#options = options;
    const { searcher } = options;
    this.index = createIndex(searcher === undefined ? {} : { searcher });
    this.#learner = searcher !== undefined && isLearningSearcher(searcher) ? searcher : undefined;
    this.#middleware = [
      ...(options.observers ?? []),
      ...(options.approval === undefined ? [] : [toolkitApproval(options.approval)]),
      ...(options.middleware ?? []),
    ];
    this.#secrets =
      options.secrets instanceof Secrets ? options.secrets : new Secrets(options.secrets);
    this.#logger =
      options.logger === undefined ? silentLogger : redactingLogger(options.logger, this.#secrets);
    this.#upstreamRequests = options.upstreamRequests;
    this.#events = new EventFanout({
      secrets: this.#secrets,
      logger: this.#logger,
      delegate: options.delegate,
    });
    const local = createLocalRegistry();
    const emit = (event: ToolkitEvent): void => {
      this.#events.emit(event);
    };
    this.#builtins = new Builtins({ index: this.index, local, emit });
    this.#connectors = new Connectors({
      index: this.index,
      logger: this.#logger,
      secrets: this.#secrets,
      emit,
      defaults: options.connectorDefaults,
      answerer: this.#answerer,
      sessionLimits: options.sessionConnections,
      factory: options.createConnector,
    });
    this.#pinning = startPinning(options.pinning, this.#logger, this.#connectors);
    this.#reading = {
      lookup: (key, lookupOptions) => this.#lookup(key, lookupOptions.signal),
      kept: this.#kept,
      builtins: this.#builtins,
      connectors: this.#connectors,
      sources: () => this.#sources(),
    };
    this.runner = createRunner({
      index: this.index,
      local,
      mcp: createMcpExecutor({
        clients: (serverName) => this.#connectors.clientOf(serverName),
      }),
      ...(this.#middleware.length === 0 ? {} : { middleware: this.#middleware }),
      ...(options.validator === undefined ? {} : { validator: options.validator }),
    });
    this.#calls = new ToolkitCalls({
      index: this.index,
      runner: this.runner,
      learner: this.#learner,
      connectors: this.#connectors,
      pinning: this.#pinning,
      secrets: this.#secrets,
      middlewareCount: this.#middleware.length,
      callAnswerers: this.#callAnswerers,
      closed: () => this.#closed,
      tracer: options.tracer ?? trace.getTracer('@toolplane/toolkit'),
      maxDepth: options.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH,
      delegate: options.delegate,
      builtins: this.#builtins,
      kept: this.#kept,
      reading: this.#reading,
      lookup: (key, signal) => this.#lookup(key, signal),
      readResource: (key, readOptions) => this.readResource(key, readOptions),
    });
    this.#unsubscribeStore = options.store?.subscribe((change) => {
      emit({
        type: change.kind === 'prompt' ? 'prompt_list_changed' : 'resource_list_changed',
        namespace: USER_NAMESPACE,
      });
    });
  }

  // -- builtins ----------------------------------------------------------------------------

  addTool(defined: DefinedTool): void {
    this.#builtins.addTool(defined);
  }

  addPrompt(prompt: Prompt): void {
    this.#builtins.addPrompt(prompt);
  }

  addResource(resource: Resource | LiveResource): void {
    this.#builtins.addResource(resource);
  }

  addResourceTemplate(template: ResourceTemplate): void {
    this.#builtins.addResourceTemplate(template);
  }

  resourceTemplates(): ToolkitResourceTemplate[] {
    return [...this.#builtins.resourceTemplates(), ...this.#connectors.resourceTemplates()];
  }

  complete(
    target: CompletionTarget,
    argument: { readonly name: string; readonly value: string },
    options: CompleteOptions = {},
  ): Promise<CompleteResult['completion']> {
    const parts = {
      connector: this.#connectors.get(target.namespace),
      sources: () => this.#sources(),
      builtins: this.#builtins,
    };
    return (
      refusedMethodOptions(options, 'complete') ?? completeIn(parts, target, argument, options)
    );
  }

  removeBuiltin(nameOrUri: string): BuiltinKind {
    return this.#builtins.remove(nameOrUri);
  }

  // -- connectors --------------------------------------------------------------------------

  addConnector(source: ConnectorSource, options: AddConnectorOptions = {}): string {
    if (this.#closed) throw new ToolError('invalid_config', 'the toolkit is closed');
    return this.#connectors.add(source, options, this.#running !== undefined);
  }

  removeConnector(
    id: string | ConnectorSource,
    options: RemoveConnectorOptions = {},
  ): Promise<boolean> {
    return this.#connectors.remove(id, options);
  }

  connectors(): ConnectorStatus[] {
    return this.#connectors.statuses();
  }

  connector(namespace: string): ToolkitConnector | undefined {
    return this.#connectors.get(namespace);
  }

  onEvent(listener: (event: ToolkitEvent) => void): () => void {
    return this.#events.listen(listener);
  }

  async run(options: { signal?: AbortSignal } = {}): Promise<void> {
    refuseUnknownMethodOptions(options, 'run');
    if (this.#closed) throw new ToolError('invalid_config', 'the toolkit is closed');
    if (this.#running !== undefined)
      throw new ToolError('invalid_config', 'the toolkit is already running');
    const running = new AbortController();
    this.#running = running;
    this.#connectors.startAll();
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
    refuseUnknownMethodOptions(options, 'ready');
    await this.#connectors.ready(options);
    // Pins loaded and first sights written: what is listed now is what pinning decided.
    await this.#pinning?.gate.settled();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#running?.abort();
    this.#unsubscribeStore?.();
    await Promise.all([this.#connectors.close(), this.#pinning?.close()]);
  }

  // -- reading -----------------------------------------------------------------------------

  async lookup(key: string, options: { signal?: AbortSignal } = {}): Promise<ToolkitItem> {
    refuseUnknownMethodOptions(options, 'lookup');
    return this.#lookup(key, options.signal);
  }

  #lookup(key: string, signal: AbortSignal | undefined): Promise<ToolkitItem> {
    return lookupIn(this.#sources(), key, signal).catch(async (error: unknown) => {
      // A tool pinning withholds is not missing: say why, and how to let it back.
      throw (await refusalFor(this.#pinning, (ns) => this.#connectors.get(ns), key)) ?? error;
    });
  }

  list(request: ListRequest = {}): Promise<ListResult> {
    return (
      refusedMethodOptions(request, 'list') ??
      listIn(this.#sources(), (ns) => this.#connectors.listErrors(ns), request)
    );
  }

  // -- searching ---------------------------------------------------------------------------

  async search(query: string, options: ToolkitSearchOptions = {}): Promise<SearchPage> {
    refuseUnknownMethodOptions(options, 'search');
    const { sessionKey, ...searchOptions } = options;
    const page = await this.index.search(query, searchOptions);
    if (sessionKey !== undefined) {
      this.#learner?.observeSearch(
        sessionKey,
        query,
        page.results.map((r) => r.id),
      );
    }
    return page;
  }

  // -- calling -----------------------------------------------------------------------------

  call<Args, Structured>(
    tool: DefinedTool<Args, Structured>,
    input: NoInfer<Args>,
    options?: CallOptions,
  ): Promise<unknown extends Structured ? CallResult | undefined : CallResult<Structured>>;
  call(
    target: string | ToolkitItem,
    input?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<(Resource & { readonly structured?: unknown }) | undefined>;
  call(
    target: string | ToolkitItem | DefinedTool,
    input: unknown = {},
    options: CallOptions = {},
  ): Promise<CallResult | Resource | undefined> {
    return this.#calls.call(target, input, options);
  }

  callTool<Args, Structured>(
    tool: DefinedTool<Args, Structured>,
    input: NoInfer<Args>,
    options?: CallOptions,
  ): Promise<RunResult & { readonly structured: Structured }>;
  callTool(id: string, input?: Record<string, unknown>, options?: CallOptions): Promise<RunResult>;
  callTool(
    target: string | DefinedTool,
    args: unknown = {},
    options: CallOptions = {},
  ): Promise<RunResult> {
    return this.#calls.callTool(target, args, options);
  }

  /** What connectors advertise and ask (read at every connect): see {@link answererOf}. */
  readonly #answerer = (): UpstreamRequestHandler | undefined =>
    answererOf(this.#upstreamRequests, () => this.#upstreamRequests, this.#callAnswerers);

  /** Rethrows `error` with the configured secrets masked in its message and error result. */
  readonly #rethrowRedacted = (error: unknown): never => {
    throw this.#secrets.redactError(error);
  };

  getPrompt(
    key: string,
    input: Record<string, unknown> = {},
    options: ReadOptions = {},
  ): Promise<RenderedPrompt> {
    return (
      refusedMethodOptions(options, 'getPrompt') ??
      getPromptIn(this.#reading, key, input, options).catch(this.#rethrowRedacted)
    );
  }

  readResource(key: string, options: ReadOptions = {}): Promise<Resource> {
    return (
      refusedMethodOptions(options, 'readResource') ??
      readResourceIn(this.#reading, key, options).catch(this.#rethrowRedacted)
    );
  }

  // -- sources -----------------------------------------------------------------------------

  /** Every namespace that can answer now, in lookup order: builtin, connected connectors, user. */
  #sources(): Source[] {
    const sources: Source[] = [this.#builtins.source(), ...this.#connectors.sources()];
    if (this.#options.store !== undefined) sources.push(storeSource(this.#options.store));
    return sources;
  }
}
