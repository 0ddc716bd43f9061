import {
  backendKey,
  fromMcpJson,
  normalizeTags,
  parseToolId,
  ToolError,
  validateBackend,
  validateTool,
  type Tool,
  type ToolBackend,
} from '@toolplane/toolmodel';
import { defaultBackendSelector, type BackendSelector } from './backend-selector.js';
import { createBm25Searcher } from './bm25-searcher.js';
import { createCursors } from './cursor.js';
import { frozenCopy, jsonEqual } from './json.js';
import {
  MAX_QUERY_LENGTH,
  type SearchDocument,
  type Searcher,
  type SearchHit,
} from './searcher.js';
import { shortDescription } from './summary.js';

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

/** Internal per-tool record; it doubles as the tool's {@link SearchDocument}. */
interface ToolRecord extends SearchDocument {
  readonly entry: ToolEntry;
  summary: Omit<ToolSummary, 'score'> | undefined;
}

/** A tool as it will be once a registration call commits. */
interface Draft {
  readonly id: string;
  tool: Tool;
  backends: ToolBackend[];
  readonly previous: ToolRecord | undefined;
  definitionChanged: boolean;
  backendsChanged: boolean;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const EMPTY_TAGS: readonly string[] = Object.freeze([]);
/** Namespaces named in a `tool_not_found` message before it says "and N more". */
const NAMESPACES_IN_MESSAGE = 20;

function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ToolError(
      'invalid_argument',
      `limit must be an integer from 1 to ${MAX_LIMIT}, got ${typeof limit === 'number' ? limit : typeof limit}`,
    );
  }
  return limit;
}

function checkNamespaceFilter(namespace: unknown): string | undefined {
  if (namespace === undefined || typeof namespace === 'string') return namespace;
  throw new ToolError('invalid_argument', `namespace must be a string, got ${typeof namespace}`);
}

function checkTagFilter(tags: unknown): readonly string[] | undefined {
  if (tags === undefined) return undefined;
  try {
    const normal = normalizeTags(tags as string[]);
    return normal.length === 0 ? undefined : normal;
  } catch (cause) {
    throw new ToolError('invalid_argument', 'tags must be an array of strings', { cause });
  }
}

/** The canonical ID of a tool that passed `validateTool` (so no part needs checking again). */
function idOf(tool: Tool): string {
  if (tool.namespace === undefined) return tool.name;
  return tool.version === undefined
    ? `${tool.namespace}:${tool.name}`
    : `${tool.namespace}:${tool.name}:${tool.version}`;
}

// A function, not an inline check: TypeScript would keep `aborted` narrowed across an await.
function aborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}

function cancelled(signal: AbortSignal): ToolError {
  return new ToolError('cancelled', 'search was cancelled', { cause: signal.reason });
}

/**
 * Creates an empty in-memory {@link ToolIndex}.
 *
 * Registration copies and deep-freezes each tool and backend once; reads hand out those frozen
 * snapshots without copying, which keeps {@link ToolIndex.getTool} a single map lookup.
 */
export function createIndex(options: IndexOptions = {}): ToolIndex {
  const selectBackend = options.selectBackend ?? defaultBackendSelector;
  const searcher = options.searcher ?? createBm25Searcher();
  const onListenerError =
    options.onListenerError ??
    ((error: unknown, event: IndexChangeEvent) => {
      console.error(`@toolplane/toolindex: a change listener threw on ${event.type}`, error);
    });
  const cursors = createCursors();

  const records = new Map<string, ToolRecord>();
  const namespaces = new Map<string, Set<string>>();
  let version = 0;
  // Sorted views, built on first use after a change.
  let sortedIds: string[] | undefined;
  const sortedByNamespace = new Map<string, string[]>();
  let sortedNamespaces: string[] | undefined;

  const listeners = new Set<IndexChangeListener>();
  const pending: IndexChangeEvent[] = [];
  let delivering = false;

  // ---- events ----

  function emit(
    type: IndexChangeType,
    id: string | undefined,
    namespace: string | undefined,
  ): void {
    version++;
    // With nobody listening there is nobody to tell, now or later: skip building the event.
    if (listeners.size === 0) return;
    const event: IndexChangeEvent =
      id === undefined
        ? { type, namespace, version }
        : namespace === undefined
          ? { type, id, version }
          : { type, id, namespace, version };
    pending.push(Object.freeze(event));
  }

  /** Delivers queued events in order; re-entrant calls only queue (the outer loop delivers). */
  function deliver(): void {
    if (delivering || pending.length === 0) return;
    delivering = true;
    try {
      // `pending` may grow while we deliver: listeners' own changes are delivered after.
      for (let i = 0; i < pending.length; i++) {
        const event = pending[i] as IndexChangeEvent;
        for (const listener of [...listeners]) {
          if (!listeners.has(listener)) continue;
          try {
            listener(event);
          } catch (error) {
            try {
              onListenerError(error, event);
            } catch {
              // A failing error reporter must not stop delivery either.
            }
          }
        }
      }
    } finally {
      pending.length = 0;
      delivering = false;
    }
  }

  function invalidateViews(): void {
    sortedIds = undefined;
    sortedByNamespace.clear();
    sortedNamespaces = undefined;
  }

  // ---- reads ----

  function notFound(id: string): ToolError {
    parseToolId(id);
    const known = namespaceList();
    const shown = known.slice(0, NAMESPACES_IN_MESSAGE).join(', ');
    const more =
      known.length > NAMESPACES_IN_MESSAGE
        ? ` and ${known.length - NAMESPACES_IN_MESSAGE} more`
        : '';
    const hint =
      known.length === 0
        ? 'the index has no namespaced tools'
        : `known namespaces: ${shown}${more}`;
    return new ToolError('tool_not_found', `tool ${JSON.stringify(id)} not found (${hint})`, {
      toolId: id,
    });
  }

  function recordOf(id: string): ToolRecord {
    const record = records.get(id);
    if (record === undefined) throw notFound(id);
    return record;
  }

  function namespaceList(): string[] {
    sortedNamespaces ??= [...namespaces.keys()].sort();
    return sortedNamespaces;
  }

  function idList(namespace: string | undefined): readonly string[] {
    if (namespace === undefined) {
      sortedIds ??= [...records.keys()].sort();
      return sortedIds;
    }
    let ids = sortedByNamespace.get(namespace);
    if (ids === undefined) {
      ids = [...(namespaces.get(namespace) ?? [])].sort();
      sortedByNamespace.set(namespace, ids);
    }
    return ids;
  }

  function hasTags(record: ToolRecord, tags: readonly string[] | undefined): boolean {
    if (tags === undefined) return true;
    for (const tag of tags) if (!record.tags.includes(tag)) return false;
    return true;
  }

  /**
   * A page of records from the sorted listing of `namespace`, starting at `position`, keeping
   * those with every tag. Returns the position of the next match for the next cursor.
   */
  function pageOf(
    namespace: string | undefined,
    tags: readonly string[] | undefined,
    position: number,
    limit: number,
  ): { records: ToolRecord[]; next: number | undefined } {
    const ids = idList(namespace);
    const page: ToolRecord[] = [];
    for (let i = position; i < ids.length; i++) {
      const record = records.get(ids[i] as string);
      if (record === undefined || !hasTags(record, tags)) continue;
      if (page.length === limit) return { records: page, next: i };
      page.push(record);
    }
    return { records: page, next: undefined };
  }

  function summaryOf(record: ToolRecord, score: number): ToolSummary {
    if (record.summary === undefined) {
      const { id, name, namespace, title, tags } = record;
      const text = record.description ?? title ?? '';
      record.summary = Object.freeze({
        id,
        name,
        ...(namespace === undefined ? {} : { namespace }),
        ...(title === undefined ? {} : { title }),
        shortDescription: shortDescription(text),
        tags,
      });
    }
    return { ...record.summary, score };
  }

  // ---- writes ----

  function makeRecord(draft: Draft): ToolRecord {
    let backend: ToolBackend | undefined;
    try {
      backend = selectBackend(draft.backends, draft.tool);
    } catch (cause) {
      throw new ToolError(
        'internal',
        `the backend selector threw for tool ${JSON.stringify(draft.id)}`,
        {
          cause,
          toolId: draft.id,
        },
      );
    }
    const tool = draft.tool;
    const entry: ToolEntry = Object.freeze({
      id: draft.id,
      tool,
      backends: Object.freeze(draft.backends.slice()),
      backend,
    });
    return {
      id: draft.id,
      name: tool.name,
      namespace: tool.namespace,
      title: tool.title,
      description: tool.description,
      tags: tool.tags ?? EMPTY_TAGS,
      entry,
      summary: draft.definitionChanged ? undefined : draft.previous?.summary,
    };
  }

  /** Copies, validates and stages registrations without touching the index. */
  function stage(
    registrations: readonly ToolRegistration[],
    replace: boolean,
  ): { drafts: Map<string, Draft>; ids: string[] } {
    const drafts = new Map<string, Draft>();
    const ids: string[] = [];
    for (const registration of registrations) {
      // Callers from plain JavaScript may pass holes or nulls; let validation name them.
      const candidate: unknown = registration;
      const { tool: input, backend: inputBackend }: Partial<ToolRegistration> =
        typeof candidate === 'object' && candidate !== null ? candidate : {};
      validateTool(input);
      validateBackend(inputBackend);
      const tool = frozenCopy(
        input.tags === undefined ? input : { ...input, tags: normalizeTags(input.tags) },
      );
      const backend = frozenCopy(inputBackend);
      const id = idOf(tool);
      ids.push(id);
      let draft = drafts.get(id);
      if (draft === undefined) {
        const previous = records.get(id);
        draft =
          previous === undefined
            ? { id, tool, backends: [], previous, definitionChanged: true, backendsChanged: true }
            : {
                id,
                tool: previous.entry.tool,
                backends: previous.entry.backends.slice(),
                previous,
                definitionChanged: false,
                backendsChanged: false,
              };
        drafts.set(id, draft);
      }
      if (draft.tool !== tool && !jsonEqual(draft.tool, tool)) {
        if (!replace) {
          throw new ToolError(
            'conflict',
            `tool ${JSON.stringify(id)} is already registered with a different definition; pass { replace: true } to replace it, or unregister it first`,
            { toolId: id, backend },
          );
        }
        draft.tool = tool;
        draft.definitionChanged = true;
      }
      const key = draft.backends.length === 0 ? '' : backendKey(backend);
      const at = draft.backends.findIndex((existing) => backendKey(existing) === key);
      if (at < 0) {
        draft.backends.push(backend);
        draft.backendsChanged = true;
      } else if (!jsonEqual(draft.backends[at], backend)) {
        draft.backends[at] = backend;
        draft.backendsChanged = true;
      }
    }
    return { drafts, ids };
  }

  /** Applies staged drafts; nothing in here can fail for well-formed input. */
  function commit(drafts: Map<string, Draft>): void {
    const built: [Draft, ToolRecord][] = [];
    for (const draft of drafts.values()) {
      if (!draft.definitionChanged && !draft.backendsChanged) continue;
      built.push([draft, makeRecord(draft)]);
    }
    for (const [draft, record] of built) {
      records.set(draft.id, record);
      if (draft.previous === undefined && record.namespace !== undefined) {
        let members = namespaces.get(record.namespace);
        if (members === undefined) {
          members = new Set();
          namespaces.set(record.namespace, members);
        }
        members.add(draft.id);
      }
      if (draft.definitionChanged) searcher.upsert(record);
      emit(draft.previous === undefined ? 'registered' : 'updated', draft.id, record.namespace);
    }
    if (built.length > 0) invalidateViews();
  }

  function register(registrations: readonly ToolRegistration[], replace: boolean): ToolEntry[] {
    if (!Array.isArray(registrations)) {
      throw new ToolError('invalid_argument', 'registerTools takes an array of { tool, backend }');
    }
    const { drafts, ids } = stage(registrations, replace);
    commit(drafts);
    const entries = entriesOf(ids);
    deliver();
    return entries;
  }

  /** The entries of just-registered IDs, taken before listeners run (they may change things). */
  function entriesOf(ids: readonly string[]): ToolEntry[] {
    const entries: ToolEntry[] = [];
    for (const id of ids) {
      const record = records.get(id);
      if (record !== undefined) entries.push(record.entry);
    }
    return entries;
  }

  function dropRecord(record: ToolRecord): void {
    records.delete(record.id);
    searcher.remove(record.id);
    if (record.namespace !== undefined) {
      const members = namespaces.get(record.namespace);
      members?.delete(record.id);
      if (members?.size === 0) namespaces.delete(record.namespace);
    }
  }

  /** Removes the backend with `key` from a tool, queueing the matching event. */
  function removeBackendByKey(record: ToolRecord, key: string): boolean {
    const backends = record.entry.backends;
    const remaining = backends.filter((backend) => backendKey(backend) !== key);
    if (remaining.length === backends.length) return false;
    if (remaining.length === 0) {
      dropRecord(record);
      emit('tool_removed', record.id, record.namespace);
    } else {
      const next = makeRecord({
        id: record.id,
        tool: record.entry.tool,
        backends: remaining,
        previous: record,
        definitionChanged: false,
        backendsChanged: true,
      });
      records.set(record.id, next);
      emit('backend_removed', record.id, record.namespace);
    }
    invalidateViews();
    return true;
  }

  function checkId(id: string): void {
    if (!records.has(id)) parseToolId(id);
  }

  const index: ToolIndex = {
    get version() {
      return version;
    },
    get size() {
      return records.size;
    },

    registerTool(tool, backend, registerOptions = {}) {
      return register([{ tool, backend }], registerOptions.replace === true)[0] as ToolEntry;
    },

    registerTools(registrations, registerOptions = {}) {
      return register(registrations, registerOptions.replace === true);
    },

    registerMcpTools(serverName, mcpTools, mcpOptions = {}) {
      const backend: ToolBackend = { kind: 'mcp', mcp: { serverName } };
      validateBackend(backend);
      if (!Array.isArray(mcpTools)) {
        throw new ToolError(
          'invalid_argument',
          'mcpTools must be the array of a tools/list result',
        );
      }
      const namespace = mcpOptions.namespace ?? serverName;
      const tags = mcpOptions.tags;
      const registrations = mcpTools.map((json) => ({
        tool: fromMcpJson(json, tags === undefined ? { namespace } : { namespace, tags }),
        backend,
      }));
      const { drafts, ids } = stage(registrations, mcpOptions.replace === true);
      commit(drafts);
      if (mcpOptions.prune === true) {
        const key = backendKey(backend);
        const listed = new Set(ids);
        for (const record of [...records.values()]) {
          if (!listed.has(record.id)) removeBackendByKey(record, key);
        }
      }
      const entries = entriesOf(ids);
      deliver();
      return entries;
    },

    unregisterBackend(id, backend) {
      checkId(id);
      validateBackend(backend);
      const record = records.get(id);
      if (record === undefined) return false;
      const removed = removeBackendByKey(record, backendKey(backend));
      deliver();
      return removed;
    },

    unregisterTool(id) {
      checkId(id);
      const record = records.get(id);
      if (record === undefined) return false;
      dropRecord(record);
      invalidateViews();
      emit('tool_removed', id, record.namespace);
      deliver();
      return true;
    },

    removeNamespace(namespace) {
      if (typeof namespace !== 'string') {
        throw new ToolError(
          'invalid_argument',
          `namespace must be a string, got ${typeof namespace}`,
        );
      }
      const members = namespaces.get(namespace);
      if (members === undefined) return 0;
      const count = members.size;
      for (const id of [...members]) {
        const record = records.get(id);
        if (record !== undefined) dropRecord(record);
      }
      namespaces.delete(namespace);
      invalidateViews();
      emit('namespace_removed', undefined, namespace);
      deliver();
      return count;
    },

    getTool(id) {
      return (records.get(id) ?? recordOf(id)).entry;
    },

    getBackends(id) {
      return (records.get(id) ?? recordOf(id)).entry.backends;
    },

    hasTool(id) {
      if (records.has(id)) return true;
      parseToolId(id);
      return false;
    },

    listTools(listOptions = {}) {
      const limit = checkLimit(listOptions.limit);
      const namespace = checkNamespaceFilter(listOptions.namespace);
      const tags = checkTagFilter(listOptions.tags);
      const scope = `list\u0000${namespace ?? ''}\u0000${tags?.join('\u0000') ?? ''}`;
      const position =
        listOptions.cursor === undefined ? 0 : cursors.decode(listOptions.cursor, version, scope);
      const page = pageOf(namespace, tags, position, limit);
      const entries = page.records.map((record) => record.entry);
      return page.next === undefined
        ? { entries }
        : { entries, nextCursor: cursors.encode(version, page.next, scope) };
    },

    listNamespaces(pageOptions = {}) {
      const limit = checkLimit(pageOptions.limit);
      const scope = 'namespaces';
      const position =
        pageOptions.cursor === undefined ? 0 : cursors.decode(pageOptions.cursor, version, scope);
      const all = namespaceList();
      const names = all.slice(position, position + limit);
      const page = names.map((namespace) => ({
        namespace,
        toolCount: namespaces.get(namespace)?.size ?? 0,
      }));
      const next = position + limit;
      return next < all.length
        ? { namespaces: page, nextCursor: cursors.encode(version, next, scope) }
        : { namespaces: page };
    },

    async search(query, searchOptions = {}) {
      if (typeof query !== 'string') {
        throw new ToolError('invalid_argument', `query must be a string, got ${typeof query}`);
      }
      const limit = checkLimit(searchOptions.limit);
      const namespace = checkNamespaceFilter(searchOptions.namespace);
      const tags = checkTagFilter(searchOptions.tags);
      const { signal, cursor } = searchOptions;
      if (signal?.aborted === true) throw cancelled(signal);
      const text = query.slice(0, MAX_QUERY_LENGTH).trim();
      const scope = `search\u0000${text}\u0000${namespace ?? ''}\u0000${tags?.join('\u0000') ?? ''}`;
      const issuedAt = version;
      const position = cursor === undefined ? 0 : cursors.decode(cursor, issuedAt, scope);

      if (text.length === 0) {
        const page = pageOf(namespace, tags, position, limit);
        const results = page.records.map((record) => summaryOf(record, 0));
        return page.next === undefined
          ? { results }
          : { results, nextCursor: cursors.encode(issuedAt, page.next, scope) };
      }

      let hits: readonly SearchHit[];
      try {
        hits = await searcher.search({
          text,
          limit: position + limit + 1,
          ...(namespace === undefined ? {} : { namespace }),
          ...(tags === undefined ? {} : { tags }),
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        if (aborted(signal)) throw cancelled(signal);
        if (ToolError.isInstance(error)) throw error;
        throw new ToolError('internal', 'the searcher failed', { cause: error });
      }
      if (aborted(signal)) throw cancelled(signal);
      const results: ToolSummary[] = [];
      for (const hit of hits.slice(position, position + limit)) {
        // An asynchronous searcher may answer after a tool was removed; leave it out.
        const record = records.get(hit.id);
        if (record !== undefined) results.push(summaryOf(record, hit.score));
      }
      return hits.length > position + limit
        ? { results, nextCursor: cursors.encode(issuedAt, position + limit, scope) }
        : { results };
    },

    onChange(listener) {
      if (typeof listener !== 'function') {
        throw new ToolError('invalid_argument', 'onChange takes a function');
      }
      // A wrapper gives each subscription its own identity, so subscribing one function twice
      // and unsubscribing once leaves the other subscription alone.
      const subscription: IndexChangeListener = (event) => {
        listener(event);
      };
      listeners.add(subscription);
      return () => {
        listeners.delete(subscription);
      };
    },
  };
  return index;
}
