import type { CompleteResult } from '@modelcontextprotocol/client';
import type { SearchOptions, SearchPage, ToolIndex } from '@toolplane/toolindex';
import type { ProgressListener, Runner, RunResult } from '@toolplane/toolrun';
import type {
  ToolkitConnector,
  ConnectorSource,
  UpstreamRequestHandler,
} from '../connectors/connector.js';
import type { DefinedTool } from '../define-tool.js';
import type { LiveResource } from '../resources/live-resources.js';
import type { RenderedPrompt, Prompt } from '../prompts/prompts.js';
import type { ResourceTemplate } from '../resources/resource-templates.js';
import type { Resource } from '../resources/resources.js';
import type { Session } from '../session.js';
import type { ToolkitHost } from './host.js';
import type {
  BuiltinKind,
  CompletionTarget,
  ConnectorStatus,
  ListRequest,
  ListResult,
  ToolkitItem,
  ToolkitResourceTemplate,
} from './items.js';
import type {
  AddConnectorOptions,
  ReadOptions,
  RemoveConnectorOptions,
  ToolkitEvent,
} from './options.js';

// The options and the item types live in their own files; they are re-exported here so every
// import of ./types.js keeps working.
export {
  DEFAULT_MAX_CALL_DEPTH,
  type AddConnectorOptions,
  type ReadOptions,
  type RemoveConnectorOptions,
  type ToolkitDelegate,
  type ToolkitEvent,
  type ToolkitOptions,
  type ToolkitPrompt,
} from './options.js';
export {
  type BuiltinKind,
  type CompletionTarget,
  type ConnectorStatus,
  type ListError,
  type ListRequest,
  type ListResult,
  type PromptItem,
  type ResourceItem,
  type ToolItem,
  type ToolkitItem,
  type ToolkitResourceTemplate,
} from './items.js';

/** The namespace of tools, prompts and resources registered in code. */
export const BUILTIN_NAMESPACE = 'builtin';
/** The namespace of the prompts and resources kept in the {@link Store}. */
export const USER_NAMESPACE = 'user';

// Lives in host.ts, with the host hooks that answer it.
export type { ConnectionMode } from './host.js';

/** Options of {@link Toolkit.call}. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /**
   * Resources handed to the call: a tool sees them as `getSession().resources`, a prompt's
   * delegate as its `resources`. A string is a URI read first (`readResource`), such as a result
   * this session kept.
   */
  readonly resources?: readonly (Resource | string)[];
  /**
   * Keeps the result ({@link Toolkit.call}) for later calls of the same session: it comes back
   * under a `toolplane://results/<id>` URI that `readResource` reads and `resources` takes. A
   * session keeps its latest 64 results; the session is `session.id`, or the current one's.
   */
  readonly keep?: boolean;
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
  /**
   * Answers the sampling and elicitation requests an MCP server sends during this call, in place
   * of the toolkit's {@link ToolkitOptions.upstreamRequests} handler. The server is told what the
   * toolkit's handler can answer when it connects, so set that one too (its `capabilities`).
   */
  readonly onUpstreamRequest?: UpstreamRequestHandler['handle'];
  /**
   * The client session the call belongs to: a per-session server runs it on that session's own
   * connection (made on first use). Calls without one use the shared connection.
   */
  readonly sessionKey?: string;
  /**
   * Who calls, for learning from use: a learning searcher matches it against the `sessionKey`
   * of earlier {@link Toolkit.search} calls (default this call's `sessionKey`). A 2026-07-28
   * client over HTTP has a session of its own for every request, so the gateway passes its
   * caller's identity here and as its searches' `sessionKey`, leaving `sessionKey` (the
   * connection a per-session server runs the call on) the request's.
   */
  readonly learningKey?: string;
}

/**
 * What {@link Toolkit.call} returns for a tool or a prompt: its answer as a resource (text, data,
 * JSON, or the resource given), with the answer itself, typed, as `structured`: a tool's
 * structured content (the runner's `RunResult.structured`) or a prompt delegate's answer.
 * `structured` is not enumerable, so spreading, comparing or serialising the resource sees the
 * resource alone.
 */
export type CallResult<Structured = unknown> = Resource & { readonly structured: Structured };

/** Options of {@link Toolkit.complete}. */
export interface CompleteOptions {
  /** The other arguments (or variables) the client has filled in so far. */
  readonly arguments?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/**
 * Tools, prompts and resources from builtins, MCP connectors and the user store, behind one
 * surface; create one with {@link createToolkit}.
 */
export interface Toolkit {
  /** The tool index behind the toolkit, for search and change events. */
  readonly index: ToolIndex;
  /**
   * Searches the tools, as `index.search`; with a `sessionKey`, what it found is remembered so a
   * learning searcher ({@link ToolkitOptions.searcher}) learns when that session calls one of them.
   *
   * @throws {ToolError} `invalid_argument` for a bad query, limit or cursor; `cancelled`.
   */
  search(query: string, options?: ToolkitSearchOptions): Promise<SearchPage>;
  /** The runner every tool call goes through. */
  readonly runner: Runner;
  /** Adds or replaces a builtin tool. @throws {ToolError} `invalid_tool`. */
  addTool(tool: DefinedTool): void;
  /** Adds or replaces a builtin prompt. @throws {ToolError} `invalid_prompt`. */
  addPrompt(prompt: Prompt): void;
  /**
   * Adds a builtin resource, or replaces the one at its URI; a replacement is announced as a
   * `resource_updated` event, so subscribed clients of a served toolkit hear of it. A live
   * resource ({@link liveResource}) is read anew on every read.
   *
   * @throws {ToolError} `invalid_resource`.
   */
  addResource(resource: Resource | LiveResource): void;
  /**
   * Adds a builtin resource template (see {@link defineResourceTemplate}), or replaces the one of
   * the same name.
   *
   * @throws {ToolError} `invalid_resource` when it was not made by `defineResourceTemplate`.
   */
  addResourceTemplate(template: ResourceTemplate): void;
  /**
   * Removes one builtin with this name or URI, tools first: the tool, or else the prompt, or else
   * the resource (by URI or name), or else the resource template; answers which kind went.
   *
   * @throws {ToolError} `not_found` when there is no builtin of that name or URI.
   */
  removeBuiltin(nameOrUri: string): BuiltinKind;
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
  addConnector(source: ConnectorSource, options?: AddConnectorOptions): string;
  /**
   * Closes and removes a connector, named by its namespace or by the source it was added with (a
   * URL, a `{ command, args }`, or a command line as text); its items go with it. True when
   * there was one.
   *
   * With `drainMs`, tool calls already in flight on its connections finish there (up to that
   * long) before they close; its tools leave the lists at once either way, and the namespace is
   * free at once for a replacement (see {@link RemoveConnectorOptions}).
   *
   * @throws {ToolError} `conflict` when a source names more than one connector.
   */
  removeConnector(id: string | ConnectorSource, options?: RemoveConnectorOptions): Promise<boolean>;
  /** The connectors, in registration order, with their states. */
  connectors(): ConnectorStatus[];
  /**
   * The connector registered under `namespace`, for servers that speak to it directly (resource
   * templates, completions, subscriptions); `undefined` when there is none.
   */
  connector(namespace: string): ToolkitConnector | undefined;
  // The host hooks moved to ToolkitHost (see toolkitHost); they stay here, deprecated, for one
  // minor so code that called them on a Toolkit keeps working.
  /** @deprecated Use `toolkitHost(toolkit).setUpstreamRequestHandler`; leaves `Toolkit` next minor. */
  readonly setUpstreamRequestHandler: ToolkitHost['setUpstreamRequestHandler'];
  /** @deprecated Use `toolkitHost(toolkit).rootsChanged`; leaves `Toolkit` next minor. */
  readonly rootsChanged: ToolkitHost['rootsChanged'];
  /** @deprecated Use `toolkitHost(toolkit).connectionOf`; leaves `Toolkit` next minor. */
  readonly connectionOf: ToolkitHost['connectionOf'];
  /** @deprecated Use `toolkitHost(toolkit).subscribeResource`; leaves `Toolkit` next minor. */
  readonly subscribeResource: ToolkitHost['subscribeResource'];
  /** @deprecated Use `toolkitHost(toolkit).unsubscribeResource`; leaves `Toolkit` next minor. */
  readonly unsubscribeResource: ToolkitHost['unsubscribeResource'];
  /** @deprecated Use `toolkitHost(toolkit).endSession`; leaves `Toolkit` next minor. */
  readonly endSession: ToolkitHost['endSession'];
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
  /**
   * Closes every connector (and ends their children); MCP calls still in flight on them fail
   * with `cancelled`. Idempotent.
   */
  close(): Promise<void>;
  /**
   * Finds an item by key: `ns.name` or `ns:name`, `uri#ns`, a bare name (builtins, then
   * connectors in registration order, then user), or a bare URI. A tool beats a prompt of the
   * same name, and a prompt a resource.
   *
   * @throws {ToolError} `not_found`.
   */
  lookup(key: string, options?: { signal?: AbortSignal }): Promise<ToolkitItem>;
  /**
   * Lists items, filtered and paged; a source that is down is reported in `errors`.
   *
   * @throws {ToolError} `invalid_argument` for a request that is not an object, a `type` other
   * than `tool`, `prompt` or `resource`, or a `limit` or `offset` out of range.
   */
  list(request?: ListRequest): Promise<ListResult>;
  /**
   * Calls a builtin tool by its definition, typed: `input` as its input schema takes it, and the
   * result's `structured` as its output schema describes it (checked against that schema by the
   * runner), so `(await toolkit.call(add, { a: 2, b: 3 })).structured.sum` is a number.
   *
   * @throws {ToolError} `not_found` when this toolkit does not hold this very definition (add it
   * with `tools` or `addTool`), `call_depth_exceeded`, and the runner's codes.
   */
  call<Args, Structured>(
    tool: DefinedTool<Args, Structured>,
    input: NoInfer<Args>,
    options?: CallOptions,
  ): Promise<unknown extends Structured ? CallResult | undefined : CallResult<Structured>>;
  /**
   * Calls a tool (through the runner), a prompt (through the delegate) or reads a resource. A
   * tool's or prompt's answer comes back as a resource (text, data, JSON, or the resource given)
   * carrying the answer itself as `structured` ({@link CallResult}); `undefined` when there is
   * none.
   *
   * @throws {ToolError} `invalid_argument` for a target that is not a key, an item or a
   * definition, `not_found`, `connector_unavailable` (or `unauthorized`) for `ns:name` or
   * `ns.name` when the server `ns` is not connected (as {@link Toolkit.callTool}),
   * `no_delegate`, `call_depth_exceeded`, and the runner's codes.
   */
  call(
    target: string | ToolkitItem,
    input?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<(Resource & { readonly structured?: unknown }) | undefined>;
  /**
   * Runs a builtin tool by its definition and returns the runner's result, typed as
   * {@link Toolkit.call} with a definition is: `structured` from the tool's output schema.
   *
   * @throws {ToolError} `not_found` when this toolkit does not hold this very definition, and the
   * runner's codes.
   */
  callTool<Args, Structured>(
    tool: DefinedTool<Args, Structured>,
    input: NoInfer<Args>,
    options?: CallOptions,
  ): Promise<RunResult & { readonly structured: Structured }>;
  /** Runs a tool and returns the runner's result (with the raw MCP result for MCP tools). */
  callTool(id: string, input?: Record<string, unknown>, options?: CallOptions): Promise<RunResult>;
  /** Renders a prompt into messages (`prompts/get`). @throws {ToolError} `not_found`. */
  getPrompt(
    key: string,
    input?: Record<string, unknown>,
    options?: ReadOptions,
  ): Promise<RenderedPrompt>;
  /**
   * Reads a resource with its contents (`resources/read`): a listed one, else (for a URI, or
   * `uri#ns`) one a builtin resource template matches.
   *
   * @throws {ToolError} `not_found`.
   */
  readResource(key: string, options?: ReadOptions): Promise<Resource>;
}

/** Options of {@link Toolkit.search}. */
export interface ToolkitSearchOptions extends SearchOptions {
  /** Who searches (a gateway session's key): its later calls of a result are learning evidence. */
  readonly sessionKey?: string;
}
