import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/server';
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

const MAX_LIMIT = 100;
/** Index pages one search_tools may read to fill a page a caller sees little of. */
const MAX_PAGES = 10;

function json(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function failure(code: string, message: string): CallToolResult {
  const error = { code, message };
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

/**
 * `search_tools`, `describe_tool` and `call_tool`: a model searches the catalogue (summaries
 * only), reads the full schema of the few tools it wants, and calls them by ID.
 */
export const searchTools: readonly SearchModeTool[] = [
  {
    tool: {
      name: 'search_tools',
      title: 'Search tools',
      description:
        "Searches the available tools by what they do. Returns short summaries with IDs; read a tool's input schema with describe_tool before calling it with call_tool.",
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 10 },
          cursor: { type: 'string', description: 'nextCursor of the previous page.' },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true },
    },
    async run(hub, args, { signal, visible }) {
      const { query, limit = 10, cursor } = args;
      if (typeof query !== 'string') return failure('invalid_argument', 'query must be a string');
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
        return failure('invalid_argument', `limit must be an integer from 1 to ${MAX_LIMIT}`);
      if (cursor !== undefined && typeof cursor !== 'string')
        return failure('invalid_argument', 'cursor must be a string');
      try {
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
          const page = await hub.toolkit.index.search(query, {
            limit: limit - results.length,
            signal,
            ...(next === undefined ? {} : { cursor: next }),
          });
          for (const { id, title, shortDescription, tags } of page.results) {
            if (!exposed.has(id)) continue;
            results.push({
              id,
              ...(title === undefined ? {} : { title }),
              description: shortDescription,
              tags: [...tags],
            });
          }
          next = page.nextCursor;
          if (next === undefined) break;
        }
        return json(next === undefined ? { results } : { results, nextCursor: next });
      } catch (error) {
        if (ToolError.isInstance(error)) return failure(error.code, error.message);
        throw error;
      }
    },
  },
  {
    tool: {
      name: 'describe_tool',
      title: 'Describe a tool',
      description:
        "Returns a tool's full definition, including its input schema, by the ID search_tools gave.",
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      },
      annotations: { readOnlyHint: true },
    },
    async run(hub, args, { visible }) {
      const found = await find(hub, args.id);
      // A tool the caller may not see is answered as one that does not exist.
      if (found === undefined || visible?.has(found[0]) === false) {
        return failure('not_found', `no tool ${JSON.stringify(args.id)}; search_tools finds IDs`);
      }
      const [, item] = found;
      return json({ id: item.id, ...toMcpJson(item.tool) });
    },
  },
  {
    tool: {
      name: 'call_tool',
      title: 'Call a tool',
      description:
        'Calls a tool by the ID search_tools gave, with arguments that match its input schema.',
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          arguments: { type: 'object', additionalProperties: true },
        },
        required: ['id'],
      },
    },
    async run(hub, args, { call }) {
      const item = (await find(hub, args.id))?.[1];
      if (item === undefined) {
        return failure('not_found', `no tool ${JSON.stringify(args.id)}; search_tools finds IDs`);
      }
      const input: unknown = args.arguments ?? {};
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        return failure('invalid_argument', 'arguments must be an object');
      return call(item, input as Record<string, unknown>);
    },
  },
];
