import type { JSONSchema } from '@langchain/core/utils/json_schema';
import {
  callThrough,
  describeTool,
  jsonResult,
  prepareCall,
  SEARCH_MODE_TOOLS,
  searchTools,
  type PreparedCall,
  type ToolSource,
} from '@toolplane/adapter-kit';
import { ToolError } from '@toolplane/toolmodel';
import { fromError, toLangChainResult, type ToolplaneArtifact } from './results.js';
import { sharedFields, ToolplaneTool } from './tool.js';
import type { LangChainToolsOptions } from './tools-options.js';

function json(toolId: string, value: Record<string, unknown>): ToolplaneArtifact {
  return { toolId, ...jsonResult(value) };
}

const [search, describe, call] = SEARCH_MODE_TOOLS;

/**
 * `search_tools`, `describe_tool` and `call_tool` as LangChain tools over the source's index,
 * limited to the tools the filter lets through: the model searches the catalogue (summaries
 * only), reads the full schema of the few tools it wants, and calls them by ID. The same three
 * tools, with the same answers, as the gateway's and the AI SDK adapter's search mode. A failure
 * thrown by the shared core becomes an error artifact in {@link ToolplaneTool}.
 */
export function searchModeTools(
  source: ToolSource,
  options: LangChainToolsOptions,
): ToolplaneTool[] {
  const fields = (tool: (typeof SEARCH_MODE_TOOLS)[number]) => ({
    name: tool.name,
    toolId: tool.name,
    description: tool.description,
    schema: tool.inputSchema as JSONSchema,
    ...sharedFields(options),
  });
  return [
    new ToolplaneTool({
      ...fields(search),
      run: async (input, { signal }) =>
        json(search.name, await searchTools(source, options, input, { signal })),
    }),
    new ToolplaneTool({
      ...fields(describe),
      run: (input) =>
        Promise.resolve().then(() => {
          const definition = describeTool(source, options, input);
          return json(definition.id, definition);
        }),
    }),
    new ToolplaneTool({
      ...fields(call),
      run: async (input, callOptions) => {
        let prepared: PreparedCall;
        try {
          prepared = prepareCall(source, options, input);
        } catch (error) {
          // Arguments refused for a tool that exists: the answer is about that tool.
          if (ToolError.isInstance(error) && error.toolId !== undefined) {
            return fromError(error.toolId, error);
          }
          throw error;
        }
        const { id, args } = prepared;
        return toLangChainResult(id, await callThrough(source, id, args, callOptions));
      },
    }),
  ];
}
