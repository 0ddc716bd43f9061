import { toMcpJson, ToolError } from '@toolplane/toolmodel';
import { callThrough, passes, type ToolFilter, type ToolSource } from './source.js';
import type { LocalRun } from './turn.js';

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;

/** One of the three search-mode tools: its definition and what runs it. */
export interface SearchModeTool {
  readonly name: 'search_tools' | 'describe_tool' | 'call_tool';
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly run: LocalRun;
}

function json(value: Record<string, unknown>): { structured: Record<string, unknown> } {
  return { structured: value };
}

/**
 * `search_tools`, `describe_tool` and `call_tool` over the source's index, limited to the tools
 * the filter lets through: for catalogues too big to list in every request, a model searches
 * (summaries only), reads the schema of the few tools it wants, and calls them by ID. The same
 * three tools, with the same answers, as the gateway's and the AI SDK adapter's search mode.
 */
export function searchModeTools(source: ToolSource, filter: ToolFilter): SearchModeTool[] {
  const exposed = (id: unknown): id is string => {
    if (typeof id !== 'string') return false;
    try {
      return source.index.hasTool(id) && passes(source.index.getTool(id), filter);
    } catch {
      // A malformed ID names no tool.
      return false;
    }
  };
  const notFound = (id: unknown): ToolError =>
    new ToolError('not_found', `no tool ${JSON.stringify(id)}; search_tools finds IDs`);
  return [
    {
      name: 'search_tools',
      description:
        "Searches the available tools by what they do. Returns short summaries with IDs; read a tool's input schema with describe_tool before calling it with call_tool.",
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
          cursor: { type: 'string', description: 'nextCursor of the previous page.' },
        },
        required: ['query'],
      },
      run: async (args, { signal }) => {
        const { query, limit = DEFAULT_LIMIT, cursor } = args;
        if (typeof query !== 'string') {
          throw new ToolError('invalid_argument', 'query must be a string');
        }
        if (
          typeof limit !== 'number' ||
          !Number.isInteger(limit) ||
          limit < 1 ||
          limit > MAX_LIMIT
        ) {
          throw new ToolError(
            'invalid_argument',
            `limit must be an integer from 1 to ${String(MAX_LIMIT)}`,
          );
        }
        if (cursor !== undefined && typeof cursor !== 'string') {
          throw new ToolError('invalid_argument', 'cursor must be a string');
        }
        const page = await source.index.search(query, {
          limit,
          ...(signal === undefined ? {} : { signal }),
          ...(cursor === undefined ? {} : { cursor }),
        });
        const results = page.results
          .filter((summary) => exposed(summary.id))
          .map(({ id, title, shortDescription, tags }) => ({
            id,
            ...(title === undefined ? {} : { title }),
            description: shortDescription,
            tags: [...tags],
          }));
        return json(
          page.nextCursor === undefined ? { results } : { results, nextCursor: page.nextCursor },
        );
      },
    },
    {
      name: 'describe_tool',
      description:
        "Returns a tool's full definition, including its input schema, by the ID search_tools gave.",
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      run: (args) => {
        const { id } = args;
        if (!exposed(id)) return Promise.reject(notFound(id));
        return Promise.resolve(json({ id, ...toMcpJson(source.index.getTool(id).tool) }));
      },
    },
    {
      name: 'call_tool',
      description:
        'Calls a tool by the ID search_tools gave, with arguments that match its input schema.',
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          arguments: {
            type: 'string',
            description: 'The arguments, as one JSON object written as text (e.g. {"a": 1}).',
          },
        },
        required: ['id'],
      },
      run: (args, options) => {
        const { id, arguments: given } = args;
        if (!exposed(id)) return Promise.reject(notFound(id));
        let input: unknown = given ?? {};
        if (typeof given === 'string') {
          try {
            input = given === '' ? {} : JSON.parse(given);
          } catch {
            return Promise.reject(new ToolError('invalid_argument', 'arguments is not valid JSON'));
          }
        }
        if (typeof input !== 'object' || input === null || Array.isArray(input)) {
          return Promise.reject(
            new ToolError('invalid_argument', 'arguments must be a JSON object'),
          );
        }
        return callThrough(source, id, input as Record<string, unknown>, options);
      },
    },
  ];
}
