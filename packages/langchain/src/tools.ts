import {
  callThrough,
  checkAdapterOptions,
  checkArguments,
  nameTools,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { ToolEntry } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { messageContentOf, toLangChainResult } from './results.js';
import { codeModeTools } from './code-mode.js';
import { searchModeTools } from './search-mode.js';
import { sharedFields, ToolplaneTool } from './tool.js';
import { LANGCHAIN_TOOLS_OPTION_KEYS, type LangChainToolsOptions } from './tools-options.js';

/**
 * The tools of a toolkit, or of a runner with its index, as LangChain structured tools for
 * `model.bindTools(tools)`, `createAgent({ tools })` or LangGraph's `ToolNode`. Each tool has a
 * provider-legal name, its description and its JSON Schema as it is (validated once, by the
 * runner), and answers a tool call with a `ToolMessage`: text for the model, the whole result as
 * its artifact ({@link ToolplaneArtifact}), `status: 'error'` when the call failed. The
 * RunnableConfig's `signal` cancels the call upstream (an MCP server receives
 * `notifications/cancelled`); callbacks hear the run and its MCP progress.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not know (or a selector, a naming
 * key, a `mode`, a `media`); `cancelled` when `signal` aborts; the index's codes for a listing
 * that fails.
 */
export function toLangChainTools(
  source: ToolSource,
  options: LangChainToolsOptions = {},
): Promise<ToolplaneTool[]> {
  // Listing is synchronous today; the promise leaves room for sources that list over the wire.
  return Promise.resolve().then(() => buildTools(source, options));
}

function buildTools(source: ToolSource, options: LangChainToolsOptions): ToolplaneTool[] {
  checkAdapterOptions(options, LANGCHAIN_TOOLS_OPTION_KEYS, 'toLangChainTools');
  checkArguments(source, options, 'toLangChainTools');
  messageContentOf(options, 'toLangChainTools');
  if (options.signal?.aborted === true) {
    throw new ToolError('cancelled', 'listing tools for LangChain was cancelled');
  }
  if (options.mode === 'search') return searchModeTools(source, options);
  if (options.mode === 'code') return codeModeTools(options);
  return nameTools(source.index, options).map(({ name, entry }) =>
    toLangChainTool(source, name, entry, options),
  );
}

/** One toolplane tool as a LangChain tool called `name`. */
function toLangChainTool(
  source: ToolSource,
  name: string,
  entry: ToolEntry,
  options: LangChainToolsOptions,
): ToolplaneTool {
  const { id, tool } = entry;
  return new ToolplaneTool({
    name,
    // Providers want a description; the name is the least misleading stand-in.
    description: tool.description ?? tool.title ?? tool.name,
    schema: tool.inputSchema,
    toolId: id,
    run: async (input, callOptions) =>
      toLangChainResult(id, await callThrough(source, id, input, callOptions)),
    // Where agent middleware (approval, routing) and tracing find what the tool is.
    metadata: {
      toolplaneId: id,
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    },
    ...sharedFields(options),
  });
}
