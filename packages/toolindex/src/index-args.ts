import { normalizeTags, ToolError, type Tool } from '@toolplane/toolmodel';

/** Page size when a listing or search names none. */
export const DEFAULT_LIMIT = 20;
/** The largest page a listing or search hands out. */
export const MAX_LIMIT = 100;

/**
 * The page size of a listing or search call.
 *
 * @throws {ToolError} `invalid_argument` unless `limit` is an integer from 1 to {@link MAX_LIMIT}.
 */
export function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ToolError(
      'invalid_argument',
      `limit must be an integer from 1 to ${MAX_LIMIT}, got ${typeof limit === 'number' ? limit : typeof limit}`,
    );
  }
  return limit;
}

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
