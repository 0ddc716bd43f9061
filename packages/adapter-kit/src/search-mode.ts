import {
  callTool,
  describeTool,
  SEARCH_MODE_TOOLS,
  searchTools,
  type SearchToolDefinition,
} from './search.js';
import type { ToolFilter, ToolSource } from './source.js';
import type { LocalRun } from './turn.js';

/** One of the three search-mode tools as the provider adapters expose it: definition and run. */
export interface SearchModeTool extends SearchToolDefinition {
  readonly run: LocalRun;
}

const [search, describe, call] = SEARCH_MODE_TOOLS;

/** `call_tool`'s input for providers: the arguments as JSON text, which strict schemas can say. */
const callInputSchema: SearchToolDefinition['inputSchema'] = {
  ...call.inputSchema,
  properties: {
    ...call.inputSchema.properties,
    arguments: {
      type: 'string',
      description: 'The arguments, as one JSON object written as text (e.g. {"a": 1}).',
    },
  },
};

/**
 * `search_tools`, `describe_tool` and `call_tool` over the source's index, limited to the tools
 * the filter lets through, for the provider adapters' turn (see `runCalls`): the shared search
 * core ({@link searchTools}, {@link describeTool}, {@link callTool}), with `call_tool`'s
 * arguments taken as JSON text. Failures are thrown as `ToolError`s, which the turn answers as
 * error outcomes.
 */
export function searchModeTools(source: ToolSource, filter: ToolFilter): SearchModeTool[] {
  return [
    {
      ...search,
      run: async (args, { signal }) => ({
        structured: await searchTools(source, filter, args, { signal }),
      }),
    },
    {
      ...describe,
      run: (args) =>
        Promise.resolve().then(() => ({ structured: describeTool(source, filter, args) })),
    },
    {
      ...call,
      inputSchema: callInputSchema,
      run: async (args, options) =>
        // `arguments` is JSON text here (strict schemas can say that); `callTool` parses it.
        callTool(source, filter, args, options),
    },
  ];
}
