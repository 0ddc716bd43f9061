import {
  countOr,
  normalizeTags,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
  type Tool,
} from '@toolplane/toolmodel';
import type {
  ListToolsOptions,
  PageOptions,
  RegisterMcpToolsOptions,
  RegisterOptions,
  SearchOptions,
} from './index-types.js';

/** Page size when a listing or search names none. */
export const DEFAULT_LIMIT = 20;
/** The largest page a listing or search hands out. */
export const MAX_LIMIT = 100;

// The keys each method takes: the compiler keeps these lists and the types in step.
const METHOD_OPTIONS = {
  registerTool: optionKeys<RegisterOptions>({ replace: true }),
  registerTools: optionKeys<RegisterOptions>({ replace: true }),
  registerMcpTools: optionKeys<RegisterMcpToolsOptions>({
    replace: true,
    namespace: true,
    tags: true,
    prune: true,
  }),
  listTools: optionKeys<ListToolsOptions>({
    cursor: true,
    limit: true,
    namespace: true,
    tags: true,
  }),
  listNamespaces: optionKeys<PageOptions>({ cursor: true, limit: true }),
  search: optionKeys<SearchOptions>({
    cursor: true,
    limit: true,
    namespace: true,
    tags: true,
    signal: true,
  }),
} as const;

/**
 * Refuses options a method of the index does not take: from JavaScript a misspelled key
 * (`search(q, { limt: 5 })`, `registerTool(t, b, { replce: true })`) would otherwise be
 * ignored without a word. Allocates nothing for options it accepts.
 *
 * @throws {ToolError} `invalid_argument` naming the key and the nearest known one.
 */
export function checkMethodOptions(options: unknown, method: keyof typeof METHOD_OPTIONS): void {
  refuseUnknownOptions(options, METHOD_OPTIONS[method], method);
}

/**
 * Whether a registration replaces what it finds, its options checked first (none given is the
 * registration path's common case, and costs nothing).
 *
 * @throws {ToolError} `invalid_argument` for a key the method does not take.
 */
export function replaceOption(
  options: RegisterOptions | undefined,
  method: 'registerTool' | 'registerTools',
): boolean {
  if (options === undefined) return false;
  checkMethodOptions(options, method);
  return options.replace === true;
}

/**
 * The page size of a listing or search call.
 *
 * @throws {ToolError} `invalid_argument` unless `limit` is an integer from 1 to {@link MAX_LIMIT}.
 */
export function checkLimit(limit: unknown): number {
  return countOr(limit, DEFAULT_LIMIT, 'limit', LIMIT_RANGE);
}

const LIMIT_RANGE = { max: MAX_LIMIT } as const;

/**
 * A namespace filter as given, or `undefined` for none.
 *
 * @throws {ToolError} `invalid_argument` when it is not a string.
 */
export function checkNamespaceFilter(namespace: unknown): string | undefined {
  if (namespace === undefined || typeof namespace === 'string') return namespace;
  throw new ToolError('invalid_argument', `namespace must be a string, got ${typeof namespace}`);
}

/**
 * A tag filter, normalised; `undefined` when it filters nothing.
 *
 * @throws {ToolError} `invalid_argument` when it is not an array of strings.
 */
export function checkTagFilter(tags: unknown): readonly string[] | undefined {
  if (tags === undefined) return undefined;
  try {
    const normal = normalizeTags(tags as string[]);
    return normal.length === 0 ? undefined : normal;
  } catch (cause) {
    throw new ToolError('invalid_argument', 'tags must be an array of strings', { cause });
  }
}

/** The canonical ID of a tool that passed `validateTool` (so no part needs checking again). */
export function idOf(tool: Tool): string {
  if (tool.namespace === undefined) return tool.name;
  return tool.version === undefined
    ? `${tool.namespace}:${tool.name}`
    : `${tool.namespace}:${tool.name}:${tool.version}`;
}

// A function, not an inline check: TypeScript would keep `aborted` narrowed across an await.
/** Whether `signal` has aborted. */
export function aborted(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}

/** The error a search throws when its signal aborts. */
export function cancelled(signal: AbortSignal): ToolError {
  return new ToolError('cancelled', 'search was cancelled', { cause: signal.reason });
}
