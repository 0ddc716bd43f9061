import {
  backendKey,
  fromMcpJson,
  optionKeys,
  parseToolId,
  refuseUnknownOptions,
  ToolError,
  validateBackend,
  type ToolBackend,
} from '@toolplane/toolmodel';
import { defaultBackendSelector } from './backend-selector.js';
import { createLinkedBm25Searcher, type LinkedBm25Searcher } from './bm25-searcher.js';
import { createChangeEvents } from './change-events.js';
import { createCursors } from './cursor.js';
import {
  aborted,
  cancelled,
  checkLimit,
  checkMethodOptions,
  checkNamespaceFilter,
  checkTagFilter,
  replaceOption,
} from './index-args.js';
import type {
  IndexChangeEvent,
  IndexOptions,
  ToolEntry,
  ToolIndex,
  ToolRegistration,
  ToolSummary,
} from './index-types.js';
import { boundedQuery, type Searcher, type SearchHit } from './searcher.js';
import { createNamespaceMembers } from './namespace-members.js';
import { linkedDirectory } from './linked-slots.js';
import {
  createSharedBackends,
  makeRecord,
  stage,
  stageOne,
  summaryOf,
  ToolRecord,
  type Draft,
} from './tool-record.js';

/** Namespaces named in a `tool_not_found` message before it says "and N more". */
const NAMESPACES_IN_MESSAGE = 20;

const KNOWN_OPTIONS = optionKeys<IndexOptions>({
  selectBackend: true,
  searcher: true,
  onListenerError: true,
});

/**
 * Creates an empty in-memory {@link ToolIndex}.
 *
 * Registration copies and deep-freezes each tool and backend once; reads hand out those frozen
 * snapshots without copying, which keeps {@link ToolIndex.getTool} a single map lookup.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option.
 */
export function createIndex(options: IndexOptions = {}): ToolIndex {
  refuseUnknownOptions(options, KNOWN_OPTIONS, 'createIndex');
  const selectBackend = options.selectBackend ?? defaultBackendSelector;
  const records = new Map<string, ToolRecord>();
  // A searcher the index creates itself keeps its slots on the index's records: one ID map.
  let linked: LinkedBm25Searcher | undefined;
  let searcher: Searcher;
  if (options.searcher === undefined) {
    linked = createLinkedBm25Searcher({}, linkedDirectory(records));
    searcher = linked;
  } else {
    searcher = options.searcher;
  }
  const onListenerError =
    options.onListenerError ??
    ((error: unknown, event: IndexChangeEvent) => {
      console.error(`@toolplane/toolindex: a change listener threw on ${event.type}`, error);
    });
  const cursors = createCursors();
  const events = createChangeEvents(onListenerError);
  const { emit, deliver } = events;

  const sharedBackends = createSharedBackends();
  const namespaces = createNamespaceMembers();
  // Sorted views, built on first use after a change.
  let sortedIds: string[] | undefined;
  const sortedByNamespace = new Map<string, string[]>();
  let sortedNamespaces: string[] | undefined;

  function invalidateViews(): void {
    sortedIds = undefined;
    // Clearing an empty map still allocates a new table: skip it on the registration path.
    if (sortedByNamespace.size > 0) sortedByNamespace.clear();
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
    sortedNamespaces ??= [...namespaces.names()].sort();
    return sortedNamespaces;
  }

  function idList(namespace: string | undefined): readonly string[] {
    if (namespace === undefined) {
      sortedIds ??= [...records.keys()].sort();
      return sortedIds;
    }
    let ids = sortedByNamespace.get(namespace);
    if (ids === undefined) {
      ids = namespaces.ids(namespace).sort();
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

  // ---- writes ----

  /** Applies staged drafts; nothing in here can fail for well-formed input. */
  function commit(drafts: readonly Draft[]): void {
    // Every record is built before any is applied: a throwing selector leaves the index as it was.
    const built: (ToolRecord | undefined)[] = [];
    let changed = false;
    for (const draft of drafts) {
      const changes = draft.definitionChanged || draft.backendsChanged;
      built.push(changes ? makeRecord(draft, selectBackend, sharedBackends) : undefined);
      if (changes) changed = true;
    }
    for (let i = 0; i < drafts.length; i++) {
      const record = built[i];
      if (record !== undefined) apply(drafts[i] as Draft, record);
    }
    if (changed) invalidateViews();
  }

  function apply(draft: Draft, record: ToolRecord): void {
    if (linked !== undefined && draft.definitionChanged) {
      // The older version leaves while its record still holds its slot; a new tool has none.
      if (draft.previous !== undefined) linked.remove(draft.id);
      records.set(draft.id, record);
      linked.add(record);
    } else {
      records.set(draft.id, record);
      if (draft.definitionChanged) searcher.upsert(record);
    }
    if (draft.previous === undefined && record.namespace !== undefined) {
      namespaces.add(record.namespace, draft.id);
    }
    emit(draft.previous === undefined ? 'registered' : 'updated', draft.id, record.namespace);
  }

  /** {@link apply} for a tool the index does not hold: nothing to remove first. */
  function addNew(record: ToolRecord): void {
    records.set(record.id, record);
    if (linked !== undefined) linked.add(record);
    else searcher.upsert(record);
    const namespace = record.namespace;
    if (namespace !== undefined) namespaces.add(namespace, record.id);
    emit('registered', record.id, namespace);
  }

  function register(registrations: readonly ToolRegistration[], replace: boolean): ToolEntry[] {
    if (!Array.isArray(registrations)) {
      throw new ToolError('invalid_argument', 'registerTools takes an array of { tool, backend }');
    }
    const { drafts, ids } = stage(records, registrations, replace, sharedBackends);
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
    // Before the record goes: a linked searcher finds the slot on it.
    searcher.remove(record.id);
    records.delete(record.id);
    if (record.namespace !== undefined) {
      namespaces.remove(record.namespace, record.id);
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
      const next = makeRecord(
        {
          id: record.id,
          tool: record.entry.tool,
          backends: remaining,
          previous: record,
          definitionChanged: false,
          backendsChanged: true,
        },
        selectBackend,
        sharedBackends,
      );
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
      return events.version;
    },
    get size() {
      return records.size;
    },

    registerTool(tool, backend, registerOptions) {
      // One tool needs none of the arrays of `register`: one draft, committed as it is, and a
      // new tool (the common case) not even that: its record comes back finished.
      const replace = replaceOption(registerOptions, 'registerTool');
      const staged = stageOne(
        records,
        tool,
        backend,
        replace,
        sharedBackends,
        undefined,
        selectBackend,
      );
      if (staged instanceof ToolRecord) {
        addNew(staged);
        invalidateViews();
        deliver();
        return staged.entry;
      }
      const draft = staged;
      // Taken before listeners run (they may change things).
      let entry: ToolEntry;
      if (draft.definitionChanged || draft.backendsChanged) {
        const record = makeRecord(draft, selectBackend, sharedBackends);
        apply(draft, record);
        invalidateViews();
        entry = record.entry;
      } else {
        // Nothing changed: the registered record is the one the draft started from.
        entry = (draft.previous as ToolRecord).entry;
      }
      deliver();
      return entry;
    },

    registerTools(registrations, registerOptions) {
      return register(registrations, replaceOption(registerOptions, 'registerTools'));
    },

    registerMcpTools(serverName, mcpTools, mcpOptions = {}) {
      checkMethodOptions(mcpOptions, 'registerMcpTools');
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
      const { drafts, ids } = stage(
        records,
        registrations,
        mcpOptions.replace === true,
        sharedBackends,
      );
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
      const count = namespaces.count(namespace);
      if (count === 0) return 0;
      for (const id of namespaces.ids(namespace)) {
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
      checkMethodOptions(listOptions, 'listTools');
      const limit = checkLimit(listOptions.limit);
      const namespace = checkNamespaceFilter(listOptions.namespace);
      const tags = checkTagFilter(listOptions.tags);
      const scope = `list\u0000${namespace ?? ''}\u0000${tags?.join('\u0000') ?? ''}`;
      const position =
        listOptions.cursor === undefined
          ? 0
          : cursors.decode(listOptions.cursor, events.version, scope);
      const page = pageOf(namespace, tags, position, limit);
      const entries = page.records.map((record) => record.entry);
      return page.next === undefined
        ? { entries }
        : { entries, nextCursor: cursors.encode(events.version, page.next, scope) };
    },

    listNamespaces(pageOptions = {}) {
      checkMethodOptions(pageOptions, 'listNamespaces');
      const limit = checkLimit(pageOptions.limit);
      const scope = 'namespaces';
      const position =
        pageOptions.cursor === undefined
          ? 0
          : cursors.decode(pageOptions.cursor, events.version, scope);
      const all = namespaceList();
      const names = all.slice(position, position + limit);
      const page = names.map((namespace) => ({
        namespace,
        toolCount: namespaces.count(namespace),
      }));
      const next = position + limit;
      return next < all.length
        ? { namespaces: page, nextCursor: cursors.encode(events.version, next, scope) }
        : { namespaces: page };
    },

    async search(query, searchOptions = {}) {
      if (typeof query !== 'string') {
        throw new ToolError('invalid_argument', `query must be a string, got ${typeof query}`);
      }
      checkMethodOptions(searchOptions, 'search');
      const limit = checkLimit(searchOptions.limit);
      const namespace = checkNamespaceFilter(searchOptions.namespace);
      const tags = checkTagFilter(searchOptions.tags);
      const { signal, cursor } = searchOptions;
      if (signal?.aborted === true) throw cancelled(signal);
      const text = boundedQuery(query);
      const scope = `search\u0000${text}\u0000${namespace ?? ''}\u0000${tags?.join('\u0000') ?? ''}`;
      const issuedAt = events.version;
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
      return events.subscribe(listener);
    },
  };
  return index;
}
