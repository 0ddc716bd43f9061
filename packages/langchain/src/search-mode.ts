import type { JSONSchema } from '@langchain/core/utils/json_schema';
import {
  callTool,
  describeTool,
  SEARCH_MODE_TOOLS,
  searchTools,
  type SearchModeAnswer,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { ToolplaneArtifact } from './results.js';
import { sharedFields, ToolplaneTool } from './tool.js';
import type { LangChainToolsOptions } from './tools.js';

/** An answer as an artifact: about the tool it names, else about the search-mode tool itself. */
function artifact(self: string, answer: SearchModeAnswer): ToolplaneArtifact {
  return { toolId: answer.toolId ?? self, ...answer.result };
}

const [search, describe, call] = SEARCH_MODE_TOOLS;

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
  const fields = (tool: (typeof SEARCH_MODE_TOOLS)[number]) => ({
    name: tool.name,
    toolId: tool.name,
    description: tool.description,
    schema: tool.inputSchema as JSONSchema,
    ...shared,
  });
  return [
    new ToolplaneTool({
      ...fields(search),
      run: async (input, { signal }) => ({
        toolId: search.name,
        ...(await searchTools(source, options, input, { signal })),
      }),
    }),
    new ToolplaneTool({
      ...fields(describe),
      run: (input) =>
        Promise.resolve(artifact(describe.name, describeTool(source, options, input))),
    }),
    new ToolplaneTool({
      ...fields(call),
      run: async (input, callOptions) =>
        artifact(call.name, await callTool(source, options, input, callOptions)),
    }),
  ];
}
