import {
  areNormalTags,
  backendKey,
  normalizeTags,
  ToolError,
  validateBackend,
  validateTool,
  type Tool,
  type ToolBackend,
} from '@toolplane/toolmodel';
import type { BackendSelector } from './backend-selector.js';
import { idOf } from './index-args.js';
import type { ToolEntry, ToolRegistration, ToolSummary } from './index-types.js';
import { frozenCopy, jsonEqual } from './json.js';
import type { SearchDocument } from './searcher.js';
import { shortDescription } from './summary.js';

const EMPTY_TAGS: readonly string[] = Object.freeze([]);

/**
 * Internal per-tool record; it doubles as the tool's {@link SearchDocument}. It holds only what
 * the index adds to the entry (its slot, its summary once searched): the text fields a search
 * document has are read from the frozen definition, the one copy of the caller's data, through
 * the prototype's getters. Four fields instead of nine is less for every registration to write
 * and for the garbage collector to copy while the record is young.
 *
 * A class, not a literal with getters: a literal would make new getter closures for every tool.
 */
export class ToolRecord implements SearchDocument {
  /** The tool's canonical ID, also on the entry; kept here too since ranking reads it often. */
  readonly id: string;
  /** What `getTool` hands out: frozen, never copied. */
  readonly entry: ToolEntry;
  /** The search result body, built on the tool's first search and kept. */
  summary: Omit<ToolSummary, 'score'> | undefined;
  /**
   * The tool's slot in the index's own BM25 searcher (-1 when not indexed there, or when the
   * index was given another searcher): the one ID map of the index serves the searcher too.
   */
  slot: number;

  constructor(entry: ToolEntry, summary: Omit<ToolSummary, 'score'> | undefined, slot: number) {
    this.id = entry.id;
    this.entry = entry;
    this.summary = summary;
    this.slot = slot;
  }

  /** The tool name. */
  get name(): string {
    return this.entry.tool.name;
  }

  /** The tool namespace, if any. */
  get namespace(): string | undefined {
    return this.entry.tool.namespace;
  }

  /** The title, if any. */
  get title(): string | undefined {
    return this.entry.tool.title;
  }

  /** The description, if any. */
  get description(): string | undefined {
    return this.entry.tool.description;
  }

  /** The normalised tags (an empty frozen array for none). */
  get tags(): readonly string[] {
    return this.entry.tool.tags ?? EMPTY_TAGS;
  }
}

/** A tool as it will be once a registration call commits. */
export interface Draft {
  readonly id: string;
  tool: Tool;
  backends: ToolBackend[];
  readonly previous: ToolRecord | undefined;
  definitionChanged: boolean;
  backendsChanged: boolean;
}

/**
 * The frozen copy of the backend registered last, shared by the tools registered with an equal
 * one: the tools of one server all name the same backend, and one frozen copy (and one frozen
 * array of it alone) serves them all, instead of three objects a tool. Frozen, so sharing is
 * safe. One per index.
 */
export interface SharedBackends {
  last: ToolBackend | undefined;
  lastAlone: readonly ToolBackend[] | undefined;
}

/** An empty {@link SharedBackends}. */
export function createSharedBackends(): SharedBackends {
  return { last: undefined, lastAlone: undefined };
}

/** The frozen copy of a validated backend: the last one when they are equal. */
function backendCopy(shared: SharedBackends, input: ToolBackend): ToolBackend {
  const last = shared.last;
  if (last !== undefined && (input === last || jsonEqual(input, last))) return last;
  const copy = frozenCopy(input);
  shared.last = copy;
  shared.lastAlone = undefined;
  return copy;
}

/** A draft's backends, frozen: the shared array when it is the last backend alone. */
function frozenBackends(shared: SharedBackends, backends: ToolBackend[]): readonly ToolBackend[] {
  const last = shared.last;
  if (backends.length === 1 && backends[0] === last && last !== undefined) {
    shared.lastAlone ??= Object.freeze([last]);
    return shared.lastAlone;
  }
  // The draft's own array (stage and removals build a new one for every draft).
  return Object.freeze(backends);
}

/**
 * The selector's choice among `backends`.
 *
 * @throws {ToolError} `internal` when the selector throws.
 */
function selected(
  selectBackend: BackendSelector,
  backends: readonly ToolBackend[],
  tool: Tool,
  id: string,
): ToolBackend | undefined {
  try {
    return selectBackend(backends, tool);
  } catch (cause) {
    throw new ToolError('internal', `the backend selector threw for tool ${JSON.stringify(id)}`, {
      cause,
      toolId: id,
    });
  }
}

/** Builds the record a draft commits to, asking `selectBackend` for its backend.
 *
 * @throws {ToolError} `internal` when the selector throws.
 */
export function makeRecord(
  draft: Draft,
  selectBackend: BackendSelector,
  shared: SharedBackends,
): ToolRecord {
  const backend = selected(selectBackend, draft.backends, draft.tool, draft.id);
  const entry: ToolEntry = Object.freeze({
    id: draft.id,
    tool: draft.tool,
    backends: frozenBackends(shared, draft.backends),
    backend,
  });
  return new ToolRecord(
    entry,
    draft.definitionChanged ? undefined : draft.previous?.summary,
    // The same definition stays in the searcher's slot; a new one gets its slot when indexed.
    draft.definitionChanged ? -1 : (draft.previous?.slot ?? -1),
  );
}

/** Copies, validates and stages registrations without touching the index. */
export function stage(
  records: ReadonlyMap<string, ToolRecord>,
  registrations: readonly ToolRegistration[],
  replace: boolean,
  shared: SharedBackends,
): { drafts: Draft[]; ids: string[] } {
  // In registration order, one per ID.
  const drafts: Draft[] = [];
  const byId = new Map<string, Draft>();
  const ids: string[] = [];
  for (const registration of registrations) {
    // Callers from plain JavaScript may pass holes or nulls; let validation name them.
    const candidate: unknown = registration;
    const { tool, backend }: Partial<ToolRegistration> =
      typeof candidate === 'object' && candidate !== null ? candidate : {};
    const draft = stageOne(records, tool, backend, replace, shared, byId, undefined);
    ids.push(draft.id);
    if (byId.get(draft.id) !== draft) {
      drafts.push(draft);
      byId.set(draft.id, draft);
    }
  }
  return { drafts, ids };
}

/**
 * Copies, validates and stages one registration: a new draft, or `earlier`'s draft of the same
 * ID (a tool named twice in one call) updated. Given `selectBackend` (by `registerTool`, which
 * commits at once), a tool the index does not hold yet comes back as its finished record: the
 * common registration of a new tool builds no draft and no array of its one backend.
 *
 * @throws {ToolError} `invalid_tool` or `invalid_backend` for bad input, `conflict` for another
 * definition of a registered tool without `replace`, `internal` when the selector throws.
 */
export function stageOne(
  records: ReadonlyMap<string, ToolRecord>,
  input: unknown,
  inputBackend: unknown,
  replace: boolean,
  shared: SharedBackends,
  earlier: ReadonlyMap<string, Draft> | undefined,
  selectBackend: undefined,
): Draft;
export function stageOne(
  records: ReadonlyMap<string, ToolRecord>,
  input: unknown,
  inputBackend: unknown,
  replace: boolean,
  shared: SharedBackends,
  earlier: undefined,
  selectBackend: BackendSelector,
): Draft | ToolRecord;
export function stageOne(
  records: ReadonlyMap<string, ToolRecord>,
  input: unknown,
  inputBackend: unknown,
  replace: boolean,
  shared: SharedBackends,
  earlier: ReadonlyMap<string, Draft> | undefined,
  selectBackend: BackendSelector | undefined,
): Draft | ToolRecord {
  validateTool(input);
  validateBackend(inputBackend);
  // Tags that are already normal are copied as they are: no normalised array, set or spread
  // copy of the tool to build and throw away.
  const tags = input.tags;
  const tool = frozenCopy(
    tags === undefined || areNormalTags(tags) ? input : { ...input, tags: normalizeTags(tags) },
  );
  const backend = backendCopy(shared, inputBackend);
  const id = idOf(tool);
  if (selectBackend !== undefined) {
    const previous = records.get(id);
    if (previous === undefined) {
      // `backendCopy` just made `backend` the shared last one: its shared array is the list.
      const backends = (shared.lastAlone ??= Object.freeze([backend]));
      const entry: ToolEntry = Object.freeze({
        id,
        tool,
        backends,
        backend: selected(selectBackend, backends, tool, id),
      });
      return new ToolRecord(entry, undefined, -1);
    }
  }
  let draft = earlier?.get(id);
  if (draft === undefined) {
    const previous = records.get(id);
    if (previous === undefined) {
      // A new tool, the common case: its one backend, in an array of exactly that size
      // (`makeRecord` freezes the draft's array as the entry's, without copying it again).
      return {
        id,
        tool,
        backends: [backend],
        previous,
        definitionChanged: true,
        backendsChanged: true,
      };
    }
    draft = {
      id,
      tool: previous.entry.tool,
      backends: previous.entry.backends.slice(),
      previous,
      definitionChanged: false,
      backendsChanged: false,
    };
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
  return draft;
}

/**
 * A search result for `record`: its summary (built on its first search and kept, frozen) with
 * the score. Module-level rather than in `createIndex`, so an index created later runs it
 * as already-optimised code on its first search.
 */
export function summaryOf(record: ToolRecord, score: number): ToolSummary {
  if (record.summary === undefined) {
    const { id, name, namespace, title, tags } = record;
    const short = shortDescription(record.description ?? title ?? '');
    // One literal per combination (no spreads of temporary objects): absent fields stay absent.
    record.summary = Object.freeze(
      namespace === undefined
        ? title === undefined
          ? { id, name, shortDescription: short, tags }
          : { id, name, title, shortDescription: short, tags }
        : title === undefined
          ? { id, name, namespace, shortDescription: short, tags }
          : { id, name, namespace, title, shortDescription: short, tags },
    );
  }
  return { ...record.summary, score };
}
