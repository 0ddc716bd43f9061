import { ToolError } from '@toolplane/toolmodel';
import type { ToolkitConnector } from '../connectors/connector.js';
import { checkLimit, checkOffset, decodeCursor, encodeCursor, type Source } from './sources.js';
import type {
  ListError,
  ListRequest,
  ListResult,
  PromptItem,
  ResourceItem,
  ToolItem,
  ToolkitItem,
} from './types.js';

const ITEM_TYPES: ReadonlySet<unknown> = new Set(['tool', 'prompt', 'resource']);

/**
 * Finds `key` in `sources` (in lookup order): `ns:name` or `ns.name`, `uri#ns`, a bare name, then
 * a bare URI.
 *
 * @throws {ToolError} `not_found`.
 */
export async function lookupIn(
  sources: readonly Source[],
  key: string,
  signal: AbortSignal | undefined,
): Promise<ToolkitItem> {
  if (typeof key !== 'string' || key.length === 0) {
    throw new ToolError(
      'not_found',
      'lookup needs a non-empty key: a name, ns:name, ns.name, a URI or uri#ns',
    );
  }
  const byNamespace = new Map(sources.map((source) => [source.namespace, source]));
  // `ns:name` and `ns.name`, scoped to a namespace that exists.
  for (const separator of [':', '.']) {
    const at = key.indexOf(separator);
    const source = at > 0 ? byNamespace.get(key.slice(0, at)) : undefined;
    const found = await source?.find(key.slice(at + 1), signal);
    if (found !== undefined) return found;
  }
  // `uri#ns`.
  const hash = key.lastIndexOf('#');
  const scoped = hash > 0 ? byNamespace.get(key.slice(hash + 1)) : undefined;
  const byUri = await scoped?.findUri(key.slice(0, hash), signal);
  if (byUri !== undefined) return byUri;
  // A bare name, then a bare URI, in source order.
  for (const source of sources) {
    const found = await source.find(key, signal);
    if (found !== undefined) return found;
  }
  for (const source of sources) {
    const found = await source.findUri(key, signal);
    if (found !== undefined) return found;
  }
  throw new ToolError(
    'not_found',
    `nothing called ${JSON.stringify(key)} (namespaces: ${sources.map((s) => s.namespace).join(', ')}); use ns:name to pick a namespace`,
  );
}

/**
 * The error of the connector that `key` (`ns:name` or `ns.name`) names when that connector is
 * down: its tools are absent from lookup until it reconnects, but they are not missing, and a
 * call by key then fails as `callTool` does.
 */
export function downFor(
  connectorOf: (namespace: string) => ToolkitConnector | undefined,
  key: unknown,
): ToolError | undefined {
  if (typeof key !== 'string') return undefined;
  for (const separator of [':', '.']) {
    const at = key.indexOf(separator);
    const connector = at > 0 ? connectorOf(key.slice(0, at)) : undefined;
    if (connector !== undefined && connector.client === undefined) return connector.unavailable();
  }
  return undefined;
}

/**
 * One page of the items of `sources` that match `request`; the errors of `errorsOf` (sources
 * already known to be down) get those that fail to list too.
 *
 * @throws {ToolError} `invalid_argument` for a request that is not an object, an unknown
 * `type`, or a `limit` or `offset` out of range.
 */
export async function listIn(
  allSources: readonly Source[],
  errorsOf: (namespace: string | undefined) => ListError[],
  request: ListRequest,
): Promise<ListResult> {
  if (typeof request !== 'object' || (request as ListRequest | null) === null) {
    throw new ToolError(
      'invalid_argument',
      'list takes an object: { type, namespace, name, limit }',
    );
  }
  const { namespace, type, name, signal } = request;
  if (type !== undefined && !ITEM_TYPES.has(type)) {
    // A misspelt type would otherwise list nothing, which reads as "there is nothing".
    throw new ToolError(
      'invalid_argument',
      `type must be "tool", "prompt" or "resource", got ${typeof type === 'string' ? JSON.stringify(type) : typeof type}`,
    );
  }
  const errors = errorsOf(namespace);
  const limit = checkLimit(request.limit);
  const offset =
    request.cursor === undefined ? checkOffset(request.offset) : decodeCursor(request.cursor);
  const sources = allSources.filter((s) => namespace === undefined || s.namespace === namespace);
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
