import { toMcpJson, ToolError } from '@toolplane/toolmodel';
import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import { executeOnce, executeThrough } from './execute.js';
import { fromError, outputOf, toModelOutput, type ResultOutput } from './results.js';
import { passes, type ToolSource } from './source.js';
import type { AiSdkToolsOptions } from './tools.js';

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;

function json(value: Record<string, unknown>): ResultOutput {
  return {
    type: 'result',
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value,
  };
}

function failure(code: 'invalid_argument' | 'not_found', message: string): ResultOutput {
  return fromError(new ToolError(code, message));
}

function args(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/**
 * `search_tools`, `describe_tool` and `call_tool` as dynamic AI SDK tools over the source's
 * index, limited to the tools the filter lets through: the model searches the catalogue
 * (summaries only), reads the full schema of the few tools it wants, and calls them by ID. The
 * same three tools, with the same answers, as the gateway's search mode.
 */
export function searchModeTools(source: ToolSource, options: AiSdkToolsOptions): ToolSet {
  const exposed = (id: unknown): id is string => {
    if (typeof id !== 'string') return false;
    try {
      return source.index.hasTool(id) && passes(source.index.getTool(id), options);
    } catch {
      // A malformed ID names no tool.
      return false;
    }
  };
  const modelOutput = (argument: unknown) => toModelOutput(outputOf(argument), options);
  const notFound = (id: unknown): ResultOutput =>
    failure('not_found', `no tool ${JSON.stringify(id)}; search_tools finds IDs`);
  const pick = options.needsApproval;
  // The tool a call_tool call names decides, as it would if it were exposed on its own.
  const approval =
    typeof pick === 'function'
      ? (input: unknown) => {
          const { id } = args(input);
          return exposed(id) && pick(source.index.getTool(id).tool, id);
        }
      : pick === true
        ? true
        : undefined;
  return {
    search_tools: dynamicTool({
      description:
        "Searches the available tools by what they do. Returns short summaries with IDs; read a tool's input schema with describe_tool before calling it with call_tool.",
      inputSchema: jsonSchema({
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words.' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
          cursor: { type: 'string', description: 'nextCursor of the previous page.' },
        },
        required: ['query'],
      }),
      execute: async (input, { abortSignal }) => {
        const { query, limit = DEFAULT_LIMIT, cursor } = args(input);
        if (typeof query !== 'string') return failure('invalid_argument', 'query must be a string');
        if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
          return failure('invalid_argument', `limit must be an integer from 1 to ${MAX_LIMIT}`);
        if (cursor !== undefined && typeof cursor !== 'string')
          return failure('invalid_argument', 'cursor must be a string');
        try {
          const page = await source.index.search(query, {
            limit,
            ...(abortSignal === undefined ? {} : { signal: abortSignal }),
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
        } catch (error) {
          if (ToolError.isInstance(error) && error.code !== 'cancelled') return fromError(error);
          throw error;
        }
      },
      toModelOutput: modelOutput,
    }),
    describe_tool: dynamicTool({
      description:
        "Returns a tool's full definition, including its input schema, by the ID search_tools gave.",
      inputSchema: jsonSchema({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
      execute: (input) => {
        const { id } = args(input);
        if (!exposed(id)) return notFound(id);
        return json({ id, ...toMcpJson(source.index.getTool(id).tool) });
      },
      toModelOutput: modelOutput,
    }),
    call_tool: dynamicTool({
      ...(approval === undefined ? {} : { needsApproval: approval }),
      description:
        'Calls a tool by the ID search_tools gave, with arguments that match its input schema.',
      inputSchema: jsonSchema({
        type: 'object',
        properties: {
          id: { type: 'string' },
          arguments: { type: 'object', additionalProperties: true },
        },
        required: ['id'],
      }),
      execute: (input, { abortSignal }) => {
        const { id, arguments: given = {} } = args(input);
        if (!exposed(id)) return notFound(id);
        if (typeof given !== 'object' || given === null || Array.isArray(given))
          return failure('invalid_argument', 'arguments must be an object');
        const call = { abortSignal, meta: options.meta };
        const callArgs = given as Record<string, unknown>;
        return options.progress === false
          ? executeOnce(source, id, callArgs, call)
          : executeThrough(source, id, callArgs, call);
      },
      toModelOutput: modelOutput,
    }),
  };
}
