import { safely } from './observe/observer.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/server';
import {
  callArgumentsOf,
  parseSearchInput,
  SEARCH_MODE_TOOLS,
  searchResultOf,
  toolNotFound,
} from '@toolplane/adapter-kit';
import { ToolError, type ToolkitItem } from '@toolplane/toolkit';
import { toMcpJson } from '@toolplane/toolmodel';
import type { GatewayHub } from './hub.js';

type ToolItem = Extract<ToolkitItem, { type: 'tool' }>;

interface SearchModeContext {
  /** Runs a tool the way a plain `tools/call` would, errors included. */
  readonly call: (item: ToolItem, input: Record<string, unknown>) => Promise<CallToolResult>;
  readonly signal: AbortSignal;
  /**
   * The exposed names of the tools the caller may see (OAuth scopes); `undefined`: all. A tool
   * outside it is, to search_tools and describe_tool, a tool that does not exist.
   */
  readonly visible?: ReadonlySet<string> | undefined;
  /** The session's key: a search, then a call of one of its results, is learning evidence. */
  readonly sessionKey?: string | undefined;
}

/** One of the three tools search mode exposes. */
export interface SearchModeTool {
  readonly tool: McpTool;
  run(
    hub: GatewayHub,
    args: Record<string, unknown>,
    context: SearchModeContext,
  ): Promise<CallToolResult>;
}

/** Index pages one search_tools may read to fill a page a caller sees little of. */
const MAX_PAGES = 10;

function json(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** A `ToolError` as the error result a plain `tools/call` would answer; anything else thrown on. */
/**
 * Why pinning withholds the tool `id` (its server changed it since it was pinned), with the
 * command that accepts it; `undefined` when it does not.
 */
async function withheld(hub: GatewayHub, id: unknown): Promise<ToolError | undefined> {
  if (typeof id !== 'string') return undefined;
  return hub.host.pinRefusal?.(id);
}

function failure(error: unknown): CallToolResult {
  if (!ToolError.isInstance(error)) throw error;
  const { code, message } = error;
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { error },
  };
}

/** The tool with canonical ID `id`, when the gateway exposes it, and its exposed name. */
async function find(hub: GatewayHub, id: unknown): Promise<[string, ToolItem] | undefined> {
  if (typeof id !== 'string') return undefined;
  const table = await hub.tools();
  return table.entries().find(([, item]) => item.id === id);
}

const [search, describe, call] = SEARCH_MODE_TOOLS;

/**
 * Whether search mode's tool `name` runs another tool (`call_tool`): for a 2026-07-28 client,
 * such a call may ask for input (the gateway's approval, an upstream's question) in rounds.
 */
export const callsTools = (name: string): boolean => name === call.name;

/**
 * Why a 2026 `call_tool` with `args` may not be replayed on another instance once the tool it
 * names was dispatched (see `GatewayHub.replayRefusal`), or undefined.
 */
export async function callToolRefusal(
  hub: GatewayHub,
  args: Record<string, unknown>,
): Promise<string | undefined> {
  const found = await find(hub, args.id);
  return found === undefined ? undefined : hub.replayRefusal(found[1], found[0]);
}

/**
 * `search_tools`, `describe_tool` and `call_tool`: a model searches the catalogue (summaries
 * only), reads the full schema of the few tools it wants, and calls them by ID. Definitions,
 * input checks, result shapes and texts are adapter-kit's (every adapter's search mode); what is
 * the gateway's own is the caller's scope filter (`visible`) and filling pages past what it may
 * not see.
 */
export const searchTools: readonly SearchModeTool[] = [
  {
    tool: { ...search, title: 'Search tools', annotations: { readOnlyHint: true } },
    async run(hub, args, { signal, visible, sessionKey }) {
      try {
        const { query, limit, cursor } = parseSearchInput(args);
        safely(hub.options.observe?.search, 'search');
        const table = await hub.tools();
        const exposed = new Set(
          table
            .entries()
            .filter(([name]) => visible?.has(name) ?? true)
            .map(([, item]) => item.id),
        );
        // A caller who may see only some tools gets pages filled from the next ones (a bounded
        // number of them), not pages left short or empty by what it may not see.
        const results: Record<string, unknown>[] = [];
        let next = cursor;
        for (let pages = 0; pages < MAX_PAGES && results.length < limit; pages++) {
          const page = await hub.toolkit.search(query, {
            limit: limit - results.length,
            signal,
            ...(sessionKey === undefined ? {} : { sessionKey }),
            ...(next === undefined ? {} : { cursor: next }),
          });
          for (const summary of page.results) {
            if (exposed.has(summary.id)) results.push(searchResultOf(summary));
          }
          next = page.nextCursor;
          if (next === undefined) break;
        }
        return json(next === undefined ? { results } : { results, nextCursor: next });
      } catch (error) {
        return failure(error);
      }
    },
  },
  {
    tool: { ...describe, title: 'Describe a tool', annotations: { readOnlyHint: true } },
    async run(hub, args, { visible }) {
      const found = await find(hub, args.id);
      // A tool the caller may not see is answered as one that does not exist.
      if (found === undefined || visible?.has(found[0]) === false) {
        return failure(toolNotFound(args.id));
      }
      const [, item] = found;
      return json({ id: item.id, ...toMcpJson(item.tool) });
    },
  },
  {
    tool: { ...call, title: 'Call a tool' },
    async run(hub, args, { call: run }) {
      const item = (await find(hub, args.id))?.[1];
      if (item === undefined)
        return failure((await withheld(hub, args.id)) ?? toolNotFound(args.id));
      let input: Record<string, unknown>;
      try {
        input = callArgumentsOf(args.arguments, item.id);
      } catch (error) {
        return failure(error);
      }
      return run(item, input);
    },
  },
];
