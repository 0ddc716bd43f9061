import { codeModeTools as kitCodeModeTools, requireCodeMode } from '@toolplane/adapter-kit';
import { ToolError } from '@toolplane/toolmodel';
import { sharedFields, ToolplaneTool } from './tool.js';
import type { LangChainToolsOptions } from './tools-options.js';

/**
 * `search_tools`, `describe_tool` and `run_code` as LangChain tools over `options.codeMode`: the
 * model searches the tools, reads the TypeScript declaration of those it wants, and writes one
 * program that calls them all in the sandbox. The same three tools, with the same answers, as
 * the gateway's code mode; a failed program is an error `ToolMessage` with its logs.
 *
 * @throws {ToolError} `invalid_argument` when `codeMode` is missing.
 */
export function codeModeTools(options: LangChainToolsOptions): ToolplaneTool[] {
  const code = requireCodeMode(options.codeMode);
  return kitCodeModeTools(code).map(
    (tool) =>
      new ToolplaneTool({
        name: tool.name,
        toolId: tool.name,
        description: tool.description,
        schema: tool.inputSchema,
        ...sharedFields(options),
        run: async (input, { signal, meta }) => {
          const result = await tool.run(input, {
            ...(signal === undefined ? {} : { signal }),
            ...(meta === undefined ? {} : { meta }),
          });
          // A run the caller cancelled stays thrown, as every LangChain tool's does.
          if (result.code === 'cancelled' && signal?.aborted === true) {
            throw new ToolError('cancelled', 'the run was cancelled', { cause: signal.reason });
          }
          // With logs, the model reads the text blocks (value, then logs): structured content
          // would stand in for them and hide the logs.
          const { structuredContent, ...rest } = result;
          return result.content.length > 1 || structuredContent === undefined
            ? { toolId: tool.name, ...rest }
            : { toolId: tool.name, ...rest, structuredContent };
        },
      }),
  );
}
