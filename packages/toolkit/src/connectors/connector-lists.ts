import { ProtocolError, type Client, type Tool as McpTool } from '@modelcontextprotocol/client';
import { didYouMean, parseMcpTool, ToolError } from '@toolplane/toolmodel';
import { z } from 'zod';
import type { ConnectorListKind, ConnectorLists } from './connector-types.js';
import { MESSAGE_TOO_LARGE, type MessageTooLargeData } from './transport/stdio-client-transport.js';

/** One of the lists a connector caches. */
export type ListKind = Exclude<keyof ConnectorLists, 'refusedTools'>;

export const EMPTY_LISTS: ConnectorLists = Object.freeze({
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
});

const LIST_KINDS: readonly ConnectorListKind[] = ['tools', 'prompts', 'resources'];

/** Every list: what a connector mirrors unless told otherwise. */
export const ALL_LISTS: ReadonlySet<ListKind> = new Set<ListKind>([
  ...LIST_KINDS,
  'resourceTemplates',
]);

/**
 * The lists a connector's `lists` option mirrors: all when absent, and the resource templates
 * with the resources.
 *
 * @throws {ToolError} `invalid_config` unless it is an array of `tools`, `prompts` and `resources`.
 */
export function mirroredLists(value: unknown): ReadonlySet<ListKind> {
  if (value === undefined) return ALL_LISTS;
  if (!Array.isArray(value)) {
    throw new ToolError(
      'invalid_config',
      `lists must be an array of ${LIST_KINDS.map((kind) => `"${kind}"`).join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  const kinds = new Set<ListKind>();
  for (const kind of value as unknown[]) {
    if (!LIST_KINDS.includes(kind as ConnectorListKind)) {
      const near = typeof kind === 'string' ? didYouMean(kind, LIST_KINDS) : undefined;
      throw new ToolError(
        'invalid_config',
        `lists: ${JSON.stringify(kind)} is not a list a server offers; ${near === undefined ? `use ${LIST_KINDS.join(', ')}` : `did you mean "${near}"?`}`,
      );
    }
    kinds.add(kind as ListKind);
    if (kind === 'resources') kinds.add('resourceTemplates');
  }
  return kinds;
}

/** A paginated list endpoint cannot send more pages than this (a broken server might loop). */
const MAX_PAGES = 1_000;

const METHODS: Readonly<Record<ListKind, string>> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

/**
 * `error` as a `message_too_large` {@link ToolError} when it says the page answering `kind` was
 * dropped for its size (see the stdio transport), else `error` itself.
 */
function listError(error: unknown, kind: ListKind): unknown {
  if (!(error instanceof ProtocolError)) return error;
  const data = error.data as Partial<MessageTooLargeData> | undefined;
  if (data?.reason !== MESSAGE_TOO_LARGE) return error;
  return new ToolError(
    'message_too_large',
    `the server's ${METHODS[kind]} page of ${String(data.bytes)} bytes is over the connector's maxMessageBytes of ${String(data.maxMessageBytes)}; raise maxMessageBytes above it or have the server send smaller pages`,
    { cause: error },
  );
}

/**
 * Every page of one of `client`'s lists, or none when the server does not offer it.
 *
 * @throws {ToolError} `message_too_large` when a page was over the stdio transport's limit.
 */
/** A `tools/list` page read loosely: its tools are checked one by one (see {@link fetchList}). */
const TOOLS_PAGE = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** A tool a server listed that is no MCP tool: its name (when it has one) and why. */
export interface RefusedTool {
  readonly name: string;
  readonly reason: string;
}

/** `items` of a tools list split into the MCP tools and those the SDK's schema refuses. */
export function checkTools(items: readonly unknown[]): {
  tools: McpTool[];
  refused: RefusedTool[];
} {
  const tools: McpTool[] = [];
  const refused: RefusedTool[] = [];
  for (const item of items) {
    try {
      tools.push(parseMcpTool(item));
    } catch (error) {
      const name = (item as { name?: unknown } | null)?.name;
      refused.push({
        name: typeof name === 'string' ? name : '(no name)',
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { tools, refused };
}

export async function fetchList(client: Client, kind: ListKind): Promise<readonly unknown[]> {
  const capabilities = client.getServerCapabilities() ?? {};
  const supported = kind === 'resourceTemplates' ? capabilities.resources : capabilities[kind];
  if (supported === undefined) return [];
  // Page by page through `request`: the SDK's list methods walk every page themselves (and fail
  // past 64), where a server whose cursors loop should leave what it listed so far.
  const page = (cursor: string | undefined) => {
    const params = cursor === undefined ? {} : { cursor };
    switch (kind) {
      case 'tools':
        // Each tool checked on its own: one the SDK's schema refuses is left out (and told of
        // in `refusedTools`), not the server's whole list with it.
        return client
          .request({ method: 'tools/list', params }, TOOLS_PAGE)
          .then((r) => ({ items: r.tools, next: r.nextCursor }));
      case 'prompts':
        return client
          .request({ method: 'prompts/list', params })
          .then((r) => ({ items: r.prompts, next: r.nextCursor }));
      case 'resources':
        return client
          .request({ method: 'resources/list', params })
          .then((r) => ({ items: r.resources, next: r.nextCursor }));
      case 'resourceTemplates':
        return client
          .request({ method: 'resources/templates/list', params })
          .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor }));
    }
  };
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const { items: batch, next } = await page(cursor).catch((error: unknown) => {
      throw listError(error, kind);
    });
    items.push(...batch);
    // A cursor seen before would loop forever: stop at what we have.
    if (next === undefined || seen.has(next)) return items;
    seen.add(next);
    cursor = next;
  }
  return items;
}

/**
 * The lists of one connector's current connection: the mirrored ones loaded all at once on
 * connect, one re-fetched on its `list_changed` (a refresh asked for while one runs runs once
 * more after it: coalesced); a list not mirrored is never fetched and stays empty. A list that
 * fails with a typed error `onLost` accepts is reported there, so the connection can end rather
 * than stay stale behind a live connection.
 */
export class ListCache {
  #lists: ConnectorLists = EMPTY_LISTS;
  readonly #refreshing = new Map<ListKind, Promise<void>>();
  readonly #stale = new Set<ListKind>();
  /** Whether the current connection's lists have begun loading ({@link follows}). */
  #loading = false;

  constructor(
    private readonly onLost: (client: Client, error: unknown) => void,
    private readonly mirrored: ReadonlySet<ListKind> = ALL_LISTS,
  ) {}

  /** Whether `kind` is fetched and followed (see `ConnectorOptions.lists`). */
  mirrors(kind: ListKind): boolean {
    return this.mirrored.has(kind);
  }

  /**
   * Whether a change to `kind` the server announces now is to be followed: `kind` is mirrored,
   * and the connection's lists have begun loading. A change announced before that (a server that
   * announces one while it answers `initialize`) is already in the lists the load fetches:
   * following it fetched each list twice, the first time before the handshake was complete.
   */
  follows(kind: ListKind): boolean {
    return this.#loading && this.mirrored.has(kind);
  }

  get current(): ConnectorLists {
    return this.#lists;
  }

  /** Settles once the re-fetch of `kind` in progress, if any, has (failed or not). */
  async settled(kind: ListKind): Promise<void> {
    for (
      let task = this.#refreshing.get(kind);
      task !== undefined;
      task = this.#refreshing.get(kind)
    ) {
      await task.catch(() => undefined);
    }
  }

  clear(): void {
    this.#lists = EMPTY_LISTS;
    this.#loading = false;
  }

  async loadAll(client: Client): Promise<void> {
    this.#lists = EMPTY_LISTS;
    this.#loading = true;
    await Promise.all([...this.mirrored].map((kind) => this.refresh(client, kind)));
  }

  async refresh(client: Client, kind: ListKind): Promise<void> {
    if (!this.mirrored.has(kind)) return;
    const running = this.#refreshing.get(kind);
    if (running) {
      this.#stale.add(kind);
      return running;
    }
    const task = (async () => {
      do {
        this.#stale.delete(kind);
        const items = await fetchList(client, kind).catch((error: unknown) => {
          this.onLost(client, error);
          throw error;
        });
        if (kind === 'tools') {
          const { tools, refused } = checkTools(items);
          this.#lists = { ...this.#lists, tools, refusedTools: refused };
        } else {
          this.#lists = { ...this.#lists, [kind]: items };
        }
      } while (this.#stale.has(kind));
    })().finally(() => this.#refreshing.delete(kind));
    this.#refreshing.set(kind, task);
    return task;
  }
}
