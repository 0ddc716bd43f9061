import { checkCount, toMcpJson, ToolError, type Tool } from '@toolplane/toolmodel';
import type { ToolSummary } from '@toolplane/toolindex';
import type { RunResult } from '@toolplane/toolrun';
import {
  callThrough,
  passes,
  type SourceCallOptions,
  type ToolFilter,
  type ToolSource,
} from './source.js';
import { parseArguments } from './turn.js';

/** The most results `search_tools` returns in one page. */
export const SEARCH_MAX_LIMIT = 100;
/** The results `search_tools` returns when the model gives no `limit`. */
export const SEARCH_DEFAULT_LIMIT = 10;

/** Name, description and JSON Schema input of one of the three search-mode tools. */
export interface SearchToolDefinition {
  readonly name: 'search_tools' | 'describe_tool' | 'call_tool';
  readonly description: string;
  readonly inputSchema: Tool['inputSchema'];
}

/**
 * `search_tools`, `describe_tool` and `call_tool` as every adapter exposes them (the same three
 * tools as the gateway's search mode): the model searches the catalogue (summaries only), reads
 * the full schema of the few tools it wants, and calls them by ID.
 */
export const SEARCH_MODE_TOOLS: readonly [
  SearchToolDefinition,
  SearchToolDefinition,
  SearchToolDefinition,
] = [
  {
    name: 'search_tools',
    description:
      "Searches the available tools by what they do. Returns short summaries with IDs; read a tool's input schema with describe_tool before calling it with call_tool.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in a few words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: SEARCH_MAX_LIMIT,
          default: SEARCH_DEFAULT_LIMIT,
        },
        cursor: { type: 'string', description: 'nextCursor of the previous page.' },
      },
      required: ['query'],
    },
  },
  {
    name: 'describe_tool',
    description:
      "Returns a tool's full definition, including its input schema, by the ID search_tools gave.",
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  {
    name: 'call_tool',
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
];

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

/**
 * The error for a `describe_tool` or `call_tool` ID that names no tool the caller may see: an
 * `invalid_argument` when there is no string ID at all.
 */
export function toolNotFound(id: unknown): ToolError {
  if (typeof id !== 'string') {
    return new ToolError(
      'invalid_argument',
      `id must be a tool ID string (as search_tools gives), not ${id === undefined ? 'missing' : typeof id}`,
    );
  }
  return new ToolError('not_found', `no tool ${JSON.stringify(id)}; search_tools finds IDs`);
}

/** A `search_tools` input that passed {@link parseSearchInput}. */
export interface SearchInput {
  readonly query: string;
  readonly limit: number;
  readonly cursor: string | undefined;
}

/**
 * Checks a `search_tools` input: a string `query`, an integer `limit` from 1 to
 * {@link SEARCH_MAX_LIMIT} (default {@link SEARCH_DEFAULT_LIMIT}), a string `cursor` if any.
 *
 * @throws {ToolError} `invalid_argument` for a bad query, limit or cursor.
 */
export function parseSearchInput(input: Record<string, unknown>): SearchInput {
  const { query, limit = SEARCH_DEFAULT_LIMIT, cursor } = input;
  if (typeof query !== 'string') throw new ToolError('invalid_argument', 'query must be a string');
  checkCount(limit, 'limit', { max: SEARCH_MAX_LIMIT });
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ToolError('invalid_argument', 'cursor must be a string');
  }
  return { query, limit, cursor };
}

/** One `search_tools` result: what a model reads of a tool before it asks for its schema. */
export function searchResultOf(summary: ToolSummary): Record<string, unknown> {
  const { id, title, shortDescription, tags } = summary;
  return {
    id,
    ...(title === undefined ? {} : { title }),
    description: shortDescription,
    tags: [...tags],
  };
}

/**
 * `call_tool`'s `arguments` (`{}` when left out), checked to be an object (not `null`); JSON text
 * of one is read too, as every search mode takes it (the provider adapters ask for text, which
 * strict schemas can say; a model may send text to the others). The runner validates them.
 *
 * @throws {ToolError} `invalid_argument` (with `toolId`) for arguments that are not an object,
 * text that is not JSON, or JSON text with an integer it cannot carry exactly (past 2^53 - 1).
 */
export function callArgumentsOf(given: unknown, toolId: string): Record<string, unknown> {
  // A model's top-level arguments may be null for none; call_tool's may not.
  const args = given === null ? 'the arguments must be a JSON object' : parseArguments(given);
  if (typeof args === 'string') throw new ToolError('invalid_argument', args, { toolId });
  return args;
}

/**
 * `search_tools`: summaries (ID, title, description, tags) of the exposed tools matching
 * `query`, and `nextCursor` when there are more.
 *
 * @throws {ToolError} `invalid_argument` for a bad query, limit or cursor; the index's codes
 * (`cancelled` when `signal` aborts).
 */
export async function searchTools(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
  options: { readonly signal?: AbortSignal | undefined } = {},
): Promise<Record<string, unknown>> {
  const { query, limit, cursor } = parseSearchInput(input);
  const { signal } = options;
  const page = await source.index.search(query, {
    limit,
    ...(signal === undefined ? {} : { signal }),
    ...(cursor === undefined ? {} : { cursor }),
  });
  const results = page.results
    .filter((summary) => isExposed(source, filter, summary.id))
    .map(searchResultOf);
  return page.nextCursor === undefined ? { results } : { results, nextCursor: page.nextCursor };
}

/**
 * `describe_tool`: an exposed tool's full MCP definition (input schema included) with its `id`.
 *
 * @throws {ToolError} `not_found` when `input.id` names no exposed tool.
 */
export function describeTool(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
): Record<string, unknown> & { readonly id: string } {
  const { id } = input;
  if (!isExposed(source, filter, id)) throw toolNotFound(id);
  return { id, ...toMcpJson(source.index.getTool(id).tool) };
}

/** A `call_tool` call that passed {@link prepareCall}: the tool and its arguments. */
export interface PreparedCall {
  readonly id: string;
  readonly args: Record<string, unknown>;
}

/**
 * Checks a `call_tool` input before the call: `id` must name an exposed tool and `arguments`
 * (default `{}`) must be an object. The runner validates the arguments themselves.
 *
 * @throws {ToolError} `not_found` for an ID that names no exposed tool; `invalid_argument`
 * (with the tool's ID) for arguments that are not an object.
 */
export function prepareCall(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
): PreparedCall {
  const { id, arguments: given } = input;
  if (!isExposed(source, filter, id)) throw toolNotFound(id);
  return { id, args: callArgumentsOf(given, id) };
}

/**
 * `call_tool`: runs an exposed tool by ID through the source ({@link callThrough}).
 *
 * @throws {ToolError} {@link prepareCall}'s codes; the call's failure as the source throws it
 * (`cancelled`, `validation`, …).
 */
export async function callTool(
  source: ToolSource,
  filter: ToolFilter,
  input: Record<string, unknown>,
  options: SourceCallOptions = {},
): Promise<RunResult> {
  const { id, args } = prepareCall(source, filter, input);
  return callThrough(source, id, args, options);
}
