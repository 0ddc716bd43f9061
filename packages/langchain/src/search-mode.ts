import type { JSONSchema } from '@langchain/core/utils/json_schema';
import { callThrough, passes, type ToolFilter, type ToolSource } from '@toolplane/adapter-kit';
import { toMcpJson, ToolError } from '@toolplane/toolmodel';
import { fromError, fromRun, type ToolplaneArtifact } from './results.js';
import { sharedFields, ToolplaneTool } from './tool.js';
import type { LangChainToolsOptions } from './tools.js';

// The framework-neutral half of search mode (which tools are exposed, what each of the three
// tools answers) is written against adapter-kit only, so it can move there and be shared.

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;

/** Whether `id` names a tool of the source that the filter lets through. */
export function isExposed(source: ToolSource, filter: ToolFilter, id: unknown): id is string {
  if (typeof id !== 'string') return false;
  try {
    return source.index.hasTool(id) && passes(source.index.getTool(id), filter);
  } catch {
    // A malformed ID names no tool.
    return false;
  }
}

function json(toolId: string, value: Record<string, unknown>): ToolplaneArtifact {
  return {
    toolId,
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value,
  };
}

function failure(toolId: string, code: 'invalid_argument' | 'not_found', message: string) {
  return fromError(toolId, new ToolError(code, message));
}

function notFound(toolId: string, id: unknown): ToolplaneArtifact {
  return failure(toolId, 'not_found', `no tool ${JSON.stringify(id)}; search_tools finds IDs`);
}

/** `search_tools`: summaries (ID, title, description, tags) of the exposed tools matching `query`. */
export async function searchTools(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<ToolplaneArtifact> {
  const self = 'search_tools';
  const { query, limit = DEFAULT_LIMIT, cursor } = input;
  if (typeof query !== 'string') return failure(self, 'invalid_argument', 'query must be a string');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    return failure(
      self,
      'invalid_argument',
      `limit must be an integer from 1 to ${String(MAX_LIMIT)}`,
    );
  if (cursor !== undefined && typeof cursor !== 'string')
    return failure(self, 'invalid_argument', 'cursor must be a string');
  const page = await source.index.search(query, {
    limit,
    ...(signal === undefined ? {} : { signal }),
    ...(cursor === undefined ? {} : { cursor }),
  });
  const results = page.results
    .filter((summary) => isExposed(source, filter, summary.id))
    .map(({ id, title, shortDescription, tags }) => ({
      id,
      ...(title === undefined ? {} : { title }),
      description: shortDescription,
      tags: [...tags],
    }));
  return json(
    self,
    page.nextCursor === undefined ? { results } : { results, nextCursor: page.nextCursor },
  );
}

/** `describe_tool`: an exposed tool's full MCP definition, input schema included. */
export function describeTool(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
): ToolplaneArtifact {
  const { id } = input;
  if (!isExposed(source, filter, id)) return notFound('describe_tool', id);
  return json(id, { id, ...toMcpJson(source.index.getTool(id).tool) });
}

/** `call_tool`: runs an exposed tool by ID; the runner validates the arguments. */
export async function callTool(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
  options: { readonly signal?: AbortSignal; readonly meta?: Record<string, unknown> } = {},
): Promise<ToolplaneArtifact> {
  const { id, arguments: given = {} } = input;
  if (!isExposed(source, filter, id)) return notFound('call_tool', id);
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    return failure(id, 'invalid_argument', 'arguments must be an object');
  return fromRun(id, await callThrough(source, id, given as Record<string, unknown>, options));
}

/**
 * `search_tools`, `describe_tool` and `call_tool` as LangChain tools over the source's index,
 * limited to the tools the filter lets through: the model searches the catalogue (summaries
 * only), reads the full schema of the few tools it wants, and calls them by ID. The same three
 * tools, with the same answers, as the gateway's and the AI SDK adapter's search mode.
 */
export function searchModeTools(
  source: ToolSource,
  options: LangChainToolsOptions,
): ToolplaneTool[] {
  const shared = sharedFields(options);
  const schema = (value: object) => value as JSONSchema;
  return [
    new ToolplaneTool({
      name: 'search_tools',
      toolId: 'search_tools',
      description:
        "Searches the available tools by what they do. Returns short summaries with IDs; read a tool's input schema with describe_tool before calling it with call_tool.",
      schema: schema({
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
          cursor: { type: 'string', description: 'nextCursor of the previous page.' },
        },
        required: ['query'],
      }),
      run: (input, { signal }) => searchTools(source, options, input, signal),
      ...shared,
    }),
    new ToolplaneTool({
      name: 'describe_tool',
      toolId: 'describe_tool',
      description:
        "Returns a tool's full definition, including its input schema, by the ID search_tools gave.",
      schema: schema({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
      run: (input) => Promise.resolve(describeTool(source, options, input)),
      ...shared,
    }),
    new ToolplaneTool({
      name: 'call_tool',
      toolId: 'call_tool',
      description:
        'Calls a tool by the ID search_tools gave, with arguments that match its input schema.',
      schema: schema({
        type: 'object',
        properties: {
          id: { type: 'string' },
          arguments: { type: 'object', additionalProperties: true },
        },
        required: ['id'],
      }),
      run: (input, callOptions) => callTool(source, options, input, callOptions),
      ...shared,
    }),
  ];
}
