import type { Tool, ToolBackend } from '@toolplane/toolmodel';
import type { BackendSelector } from './backend-selector.js';
import type { Searcher } from './searcher.js';

/**
 * A registered tool as the index hands it out: the tool, every backend it can run on, and the
 * one the {@link BackendSelector} picked. Entries are deeply frozen snapshots: reading one costs
 * nothing, and no caller can change what the index holds through it.
 */
export interface ToolEntry {
  /** Canonical ID (`namespace:name`, `namespace:name:version` or `name`). */
  readonly id: string;
  /** The definition, deeply frozen, with normalised tags. */
  readonly tool: Tool;
  /** Every backend bound to the tool, in registration order; never empty. */
  readonly backends: readonly ToolBackend[];
  /** The selected backend; `undefined` only when a custom selector declines every backend. */
  readonly backend: ToolBackend | undefined;
}

/** A search result: what a model needs to pick a tool, never its schemas. */
export interface ToolSummary {
  readonly id: string;
  readonly name: string;
  readonly namespace?: string;
  readonly title?: string;
  /** The description on one line, at most 120 characters, cut at a word boundary. */
  readonly shortDescription: string;
  readonly tags: readonly string[];
  /** Relevance; higher is better. `0` when listing by ID (an empty query). */
  readonly score: number;
}

/** What changed, on an {@link IndexChangeEvent}. */
export type IndexChangeType =
  'registered' | 'updated' | 'backend_removed' | 'tool_removed' | 'namespace_removed';

/**
 * One change to the index, delivered after the change is complete. `version` rises strictly
 * from one event to the next and equals {@link ToolIndex.version} right after the change.
 */
export interface IndexChangeEvent {
  readonly type: IndexChangeType;
  /** The tool concerned; absent on `namespace_removed`. */
  readonly id?: string;
  /** The tool's namespace, or the namespace removed. */
  readonly namespace?: string;
  readonly version: number;
}

/** Receives {@link IndexChangeEvent}s; see {@link ToolIndex.onChange}. */
export type IndexChangeListener = (event: IndexChangeEvent) => void;

/** Options for {@link createIndex}. */
export interface IndexOptions {
  /** Picks each tool's backend; default {@link defaultBackendSelector}. */
  readonly selectBackend?: BackendSelector;
  /** The search engine; default a new {@link createBm25Searcher}. One searcher per index. */
  readonly searcher?: Searcher;
  /**
   * Called when a change listener throws; the index and the other listeners carry on either way.
   * Default: `console.error`.
   */
  readonly onListenerError?: (error: unknown, event: IndexChangeEvent) => void;
}

/** Options for registering tools. */
export interface RegisterOptions {
  /**
   * Replace the definition of a tool already registered under the same ID with a different one
   * (e.g. an upstream server changed it). Without it that is a `conflict`.
   */
  readonly replace?: boolean;
}

/** One tool and a backend, for {@link ToolIndex.registerTools}. */
export interface ToolRegistration {
  readonly tool: Tool;
  readonly backend: ToolBackend;
}

/** Options for {@link ToolIndex.registerMcpTools}. */
export interface RegisterMcpToolsOptions extends RegisterOptions {
  /** Namespace for the server's tools; default the server name. */
  readonly namespace?: string;
  /** Tags to attach to every tool. */
  readonly tags?: readonly string[];
  /**
   * Also unbind this server from every tool it no longer lists (a tool whose last backend that
   * was goes with it), so the index mirrors the server's current `tools/list`.
   */
  readonly prune?: boolean;
}

/** Paging options shared by the listing calls. */
export interface PageOptions {
  /** A `nextCursor` from the previous page of the same call with the same filters. */
  readonly cursor?: string;
  /** Page size, an integer from 1 to 100; default 20. */
  readonly limit?: number;
}

/** Options for {@link ToolIndex.listTools}. */
export interface ListToolsOptions extends PageOptions {
  /** Only tools in this namespace. */
  readonly namespace?: string;
  /** Only tools carrying every one of these tags (normalised before matching). */
  readonly tags?: readonly string[];
}

/** Options for {@link ToolIndex.search}. */
export interface SearchOptions extends ListToolsOptions {
  /** Aborts a search that waits on an asynchronous searcher. */
  readonly signal?: AbortSignal;
}

/** One page of {@link ToolIndex.listTools}, in ascending ID order. */
export interface ToolPage {
  readonly entries: readonly ToolEntry[];
  /** Present when there are more; pass it back as `cursor`. */
  readonly nextCursor?: string;
}

/** A namespace and how many tools it holds. */
export interface NamespaceInfo {
  readonly namespace: string;
  readonly toolCount: number;
}

/** One page of {@link ToolIndex.listNamespaces}, in ascending order. */
export interface NamespacePage {
  readonly namespaces: readonly NamespaceInfo[];
  readonly nextCursor?: string;
}

/** One page of {@link ToolIndex.search}, best match first. */
export interface SearchPage {
  readonly results: readonly ToolSummary[];
  readonly nextCursor?: string;
}

/**
 * An in-memory registry of tools and their backends, with search, cursor pagination and change
 * events. Create one with {@link createIndex}.
 *
 * Every mutation is atomic: it validates everything first, so a failing call changes nothing.
 * Cursors are bound to the {@link ToolIndex.version} they were issued at: after any change they
 * are rejected with `invalid_cursor`, so a listing never skips or repeats a tool silently.
 */
export interface ToolIndex {
  /** Rises by one with every change (every event); starts at 0. */
  readonly version: number;
  /** How many tools are registered. */
  readonly size: number;

  /**
   * Registers a tool with a backend. Registering an ID again with the same definition (deep
   * equality, key order ignored) adds the backend, or replaces the one with the same
   * {@link backendKey}. Registering nothing new is a no-op without an event.
   *
   * @throws {ToolError} `invalid_tool` / `invalid_backend` for malformed input; `conflict` when
   * a different definition is registered under the ID and `replace` is not set.
   */
  registerTool(tool: Tool, backend: ToolBackend, options?: RegisterOptions): ToolEntry;
  /**
   * Registers several tools at once, all or nothing: one bad entry registers none. Same rules
   * as {@link ToolIndex.registerTool}; events are delivered after the whole batch.
   *
   * @throws {ToolError} `invalid_tool`, `invalid_backend` or `conflict`, registering nothing.
   */
  registerTools(registrations: readonly ToolRegistration[], options?: RegisterOptions): ToolEntry[];
  /**
   * Registers the tools of an MCP server's `tools/list` result (plain MCP tool JSON) under a
   * namespace (default the server name), bound to `{ kind: 'mcp', mcp: { serverName } }`.
   * All or nothing.
   *
   * @throws {ToolError} `invalid_tool` for JSON that is not an MCP tool, `invalid_backend` for
   * a bad server name, `conflict` as for {@link ToolIndex.registerTool}.
   */
  registerMcpTools(
    serverName: string,
    mcpTools: readonly unknown[],
    options?: RegisterMcpToolsOptions,
  ): ToolEntry[];

  /**
   * Unbinds one backend (matched by {@link backendKey}); the tool goes with its last backend.
   * Returns whether anything was removed.
   *
   * @throws {ToolError} `invalid_tool_id` or `invalid_backend` for malformed arguments.
   */
  unregisterBackend(id: string, backend: ToolBackend): boolean;
  /**
   * Removes a tool and all its backends. Returns whether it was registered.
   *
   * @throws {ToolError} `invalid_tool_id` for a malformed ID.
   */
  unregisterTool(id: string): boolean;
  /**
   * Removes every tool of a namespace with one `namespace_removed` event. Returns how many
   * tools were removed.
   *
   * @throws {ToolError} `invalid_argument` when `namespace` is not a string.
   */
  removeNamespace(namespace: string): number;

  /**
   * The tool registered under `id`, its backends and the selected backend.
   *
   * @throws {ToolError} `tool_not_found` (naming the known namespaces) or `invalid_tool_id`.
   */
  getTool(id: string): ToolEntry;
  /**
   * The backends of a tool, in registration order.
   *
   * @throws {ToolError} `tool_not_found` or `invalid_tool_id`.
   */
  getBackends(id: string): readonly ToolBackend[];
  /**
   * Whether a tool is registered under `id`.
   *
   * @throws {ToolError} `invalid_tool_id` for a malformed ID.
   */
  hasTool(id: string): boolean;
  /**
   * One page of tools in ascending ID order, optionally filtered.
   *
   * @throws {ToolError} `invalid_cursor` for a stale or foreign cursor; `invalid_argument` for
   * a bad limit or filter.
   */
  listTools(options?: ListToolsOptions): ToolPage;
  /**
   * One page of namespaces with their tool counts, in ascending order.
   *
   * @throws {ToolError} `invalid_cursor` or `invalid_argument` as for {@link ToolIndex.listTools}.
   */
  listNamespaces(options?: PageOptions): NamespacePage;
  /**
   * Ranked summaries of the tools matching a plain-text query (any characters are safe; queries
   * are cut to 1000 characters). An empty query lists tools by ID with score 0. Always returns a
   * promise, so a synchronous (BM25) and an asynchronous (embedding) searcher look the same.
   *
   * @throws {ToolError} `invalid_argument`, `invalid_cursor`, or `cancelled` when `signal` aborts.
   */
  search(query: string, options?: SearchOptions): Promise<SearchPage>;

  /**
   * Subscribes to changes. Events arrive in version order, after each change is complete, even
   * when a listener changes the index while being notified (its changes are delivered next).
   * Returns an unsubscribe function, safe to call more than once.
   */
  onChange(listener: IndexChangeListener): () => void;
}
