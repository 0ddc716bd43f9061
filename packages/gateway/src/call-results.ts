import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  UriTemplate,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import {
  ToolError,
  USER_NAMESPACE,
  type ListError,
  type RunResult,
  type Toolkit,
  type ToolkitHost,
} from '@toolplane/toolkit';
import { CONNECTION_CLOSED } from '@toolplane/toolmodel/wire';
import type { Era } from './eras.js';
import {
  toLegacyCallToolResult,
  withoutUpstreamServer,
  type RunCallToolResult,
} from './sdk/seam.js';
import type { ToolItem } from './items.js';

/** The `_meta` key under which a failed call's result carries toolplane's structured error. */
export const ERROR_META_KEY = 'io.toolplane/error';

/** The lists the gateway pages, each with cursors of its own. */
export type PagedList =
  'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list';

const PAGED_LISTS: readonly string[] = [
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
] satisfies readonly PagedList[];

/**
 * One page of `list`'s `items`, which are sorted by `key`: those after the cursor's key, `size`
 * of them.
 *
 * @throws {ProtocolError} -32602 for a cursor `list` did not issue.
 */
export function page<T>(
  list: PagedList,
  items: readonly T[],
  key: (item: T) => string,
  cursor: string | undefined,
  size: number,
): { items: T[]; nextCursor?: string } {
  const start = pageStart(list, items, key, cursor);
  const slice = items.slice(start, start + size);
  const last = slice.at(-1);
  return start + size < items.length && last !== undefined
    ? { items: slice, nextCursor: encodeCursor(list, key(last)) }
    : { items: slice };
}

/**
 * Where the page after `cursor` starts in `list`'s `items` (sorted by `key`): keyset paging, so
 * items added or removed between pages never shift the ones after. The first item past the
 * cursor's key, by binary search; 0 with no cursor.
 *
 * @throws {ProtocolError} -32602 for a cursor `list` did not issue.
 */
export function pageStart<T>(
  list: PagedList,
  items: readonly T[],
  key: (item: T) => string,
  cursor: string | undefined,
): number {
  let start = 0;
  if (cursor === undefined) return start;
  const after = decodeCursor(list, cursor);
  let high = items.length;
  while (start < high) {
    const middle = (start + high) >>> 1;
    const item = items[middle];
    if (item !== undefined && compare(key(item), after) <= 0) start = middle + 1;
    else high = middle;
  }
  return start;
}

/**
 * The cursor of `list` for the page after the item keyed `key`: the list's name and the key, so
 * a cursor is refused by every other list (it names no item there), as MCP asks of a cursor a
 * list did not issue. No secret in it: every gateway instance behind one address reads it.
 */
export function encodeCursor(list: PagedList, key: string): string {
  return Buffer.from(`${list}\n${key}`).toString('base64url');
}

/**
 * The key a cursor of `list` names.
 *
 * @throws {ProtocolError} -32602 for a cursor `list` did not issue, naming the list that did
 * when it is another of the gateway's.
 */
export function decodeCursor(list: PagedList, cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const at = text.indexOf('\n');
  const owner = at > 0 ? text.slice(0, at) : undefined;
  const after = at > 0 ? text.slice(at + 1) : '';
  if (
    owner === undefined ||
    after.length === 0 ||
    !PAGED_LISTS.includes(owner) ||
    Buffer.from(text).toString('base64url') !== cursor
  ) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the cursor is not one ${list} issued; call ${list} again without a cursor`,
    );
  }
  if (owner !== list) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the cursor belongs to ${owner}, not ${list}; send it to ${owner}, or call ${list} without a cursor`,
    );
  }
  return after;
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function matches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

export function unknownTool(name: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `no tool "${name}"; tools/list names them`,
  );
}

/**
 * The answer to a `tools/call` of a tool pinning withholds (its server changed it since it was
 * pinned): an error result naming the change and the command that accepts it; `undefined` for a
 * name pinning does not withhold.
 */
export async function pinnedToolResult(
  host: Pick<ToolkitHost, 'pinRefusal'>,
  name: string,
  separator: string,
): Promise<CallToolResult | undefined> {
  const at = name.indexOf(separator);
  if (at <= 0 || host.pinRefusal === undefined) return undefined;
  const id = `${name.slice(0, at)}:${name.slice(at + separator.length)}`;
  const refusal = await host.pinRefusal(id);
  return refusal === undefined ? undefined : errorResult(refusal, { id, tool: {} });
}

/**
 * The answer to a `tools/call` of a name no listed tool has. When the name's namespace is a
 * server that is not connected (one waiting for `toolplane auth login`, say), whose tools were
 * never listed, the call fails as a call of one of its listed tools would: an error result saying
 * why (`unauthorized` or `connector_unavailable`). Otherwise -32602, thrown.
 */
export function unlistedToolResult(
  toolkit: Pick<Toolkit, 'connectors'>,
  name: string,
  separator: string,
): CallToolResult {
  const at = name.indexOf(separator);
  const namespace = at > 0 ? name.slice(0, at) : undefined;
  const status = toolkit.connectors().find((s) => s.namespace === namespace);
  if (namespace === undefined || status === undefined || status.state === 'connected')
    throw unknownTool(name);
  const why = status.error === undefined ? status.state : `${status.state}: ${status.error}`;
  const failure = new ToolError(
    status.state === 'auth_required' ? 'unauthorized' : 'connector_unavailable',
    `MCP server "${namespace}" is not connected (${why})`,
  );
  return errorResult(failure, {
    id: `${namespace}:${name.slice(at + separator.length)}`,
    tool: {},
  });
}

// The wire codes JSON-RPC servers have sent for the SDK's own failures (SDK v1's, MCP's -32001
// and -32000); v2 gives them string codes that never cross the wire (SdkError).
const WIRE_CODES: Partial<Record<SdkErrorCode, number>> = {
  [SdkErrorCode.RequestTimeout]: -32001,
  [SdkErrorCode.ConnectionClosed]: CONNECTION_CLOSED,
};

/**
 * A toolkit failure outside a tool call as a JSON-RPC error: an upstream's `ProtocolError` keeps
 * its code, message and data, a timeout or a closed connection (`SdkError`) gets the wire code
 * JSON-RPC servers send for it, and a `ToolError` -32602 or -32603 with its `code` as data.
 */
export function protocolError(error: unknown): ProtocolError {
  if (ProtocolError.isInstance(error)) return error;
  if (SdkError.isInstance(error)) {
    const code = WIRE_CODES[error.code];
    if (code !== undefined) return new ProtocolError(code, error.message, error.data);
  }
  if (ToolError.isInstance(error)) {
    const code =
      error.code === 'not_found' ||
      error.code === 'invalid_argument' ||
      error.code === 'validation' ||
      error.code === 'invalid_prompt'
        ? ProtocolErrorCode.InvalidParams
        : ProtocolErrorCode.InternalError;
    return new ProtocolError(code, error.message, { code: error.code });
  }
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    error instanceof Error ? error.message : String(error),
  );
}

/**
 * The answer to a `prompts/get` or `resources/read` whose name or URI no list holds while the
 * user store could not be listed (in `unlisted`): it may be one of the store's, so the client is
 * told the store failed (-32603, `data.code` `store_error`), never that there is no such item.
 * `undefined` when the store was listed, or `owned` says the item cannot be the store's.
 */
export function unlistedStoreError(
  unlisted: readonly ListError[],
  what: string,
  owned: boolean,
): ProtocolError | undefined {
  const store = unlisted.find((error) => error.namespace === USER_NAMESPACE);
  if (store === undefined || !owned) return undefined;
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `${what} may be in the user store, which could not be read: ${store.message}; try again`,
    { code: 'store_error' },
  );
}

/** A successful run as a `tools/call` result: an MCP tool's result as it came, else rendered. */
export function toCallToolResult(run: RunResult, era: Era = 'legacy'): CallToolResult {
  if (run.mcpResult !== undefined) {
    const result = withoutUpstreamServer(run.mcpResult);
    return era === 'modern' ? result : toLegacyCallToolResult(result);
  }
  const value = run.structured;
  if (value === undefined) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const text = JSON.stringify(value);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { content: [{ type: 'text', text }], structuredContent: value }
    : { content: [{ type: 'text', text }] };
}

/**
 * A failed call as a `tools/call` result with `isError: true`. An upstream's own error result (the
 * cause of the failure) passes through as it was sent, content, `structuredContent` and `_meta`
 * alike, with toolplane's structured error (`code`, `message`, `toolId`) added under
 * {@link ERROR_META_KEY} in `_meta`. Any other failure is told in a text block and there, and as
 * `structuredContent.error` for tools without an output schema (one binds `structuredContent`).
 */
export function errorResult(
  error: unknown,
  item: Pick<ToolItem, 'id'> & { readonly tool: Pick<ToolItem['tool'], 'outputSchema'> },
  era: Era = 'legacy',
): CallToolResult {
  const failure = ToolError.isInstance(error)
    ? error
    : new ToolError('internal', error instanceof Error ? error.message : String(error), {
        cause: error,
        toolId: item.id,
      });
  const structured = {
    code: failure.code,
    message: failure.message,
    toolId: failure.toolId ?? item.id,
  };
  const upstream = upstreamErrorResult(failure, era);
  if (upstream !== undefined) {
    return {
      ...upstream,
      isError: true,
      _meta: { ...upstream._meta, [ERROR_META_KEY]: structured },
    };
  }
  return {
    isError: true,
    content: [{ type: 'text' as const, text: `${failure.code}: ${failure.message}` }],
    ...(item.tool.outputSchema === undefined ? { structuredContent: { error: structured } } : {}),
    _meta: { [ERROR_META_KEY]: structured },
  };
}

// Errors the gateway answered an upstream's own request with (a client's refusal of the sampling
// a 2026-07-28 server asked for in an input round, say): in the failure of the call they ended,
// they are what the gateway said upstream, never what the upstream answered.
const answersToUpstream = new WeakSet<object>();

/** Marks `error` as the gateway's answer to an upstream's request; returns it, to be thrown. */
export function answeredToUpstream(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) answersToUpstream.add(error);
  return error;
}

/**
 * The JSON-RPC error an upstream answered a call with, when a failure carries one in its cause
 * chain (the runner wraps it): passed on as it came, code, message and data, so that a client of
 * the gateway hears what the server said (a lost connection is an `SdkError`, never this).
 */
export function upstreamProtocolError(error: unknown): ProtocolError | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 8 && cause instanceof Error; depth++) {
    if (ProtocolError.isInstance(cause) && !answersToUpstream.has(cause)) return cause;
    cause = cause.cause;
  }
  return undefined;
}

/** The upstream error result a failure carries in its cause chain (the runner wraps it). */
function upstreamErrorResult(error: Error, era: Era): CallToolResult | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 8 && cause !== undefined; depth++) {
    const result = cause as Partial<CallToolResult>;
    if (result.isError === true && Array.isArray(result.content)) {
      const upstream = withoutUpstreamServer(result as RunCallToolResult);
      return era === 'modern' ? upstream : toLegacyCallToolResult(upstream);
    }
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return undefined;
}
