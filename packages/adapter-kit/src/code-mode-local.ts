import { ToolError } from '@toolplane/toolmodel';
import {
  codeModeTools,
  requireCodeMode,
  type CodeModeRunner,
  type CodeModeToolDefinition,
} from './code-mode.js';
import type { LocalRun } from './turn.js';

/** One of code mode's tools as the provider adapters' turn runs it (see `runCalls`). */
export interface CodeModeLocalTool extends CodeModeToolDefinition {
  readonly run: LocalRun;
}

/**
 * Code mode's three tools for the provider adapters' turn: a successful answer as the tool's
 * result (without structured content when the program logged, so the model reads the logs); a
 * failed one thrown as a `ToolError` with its code, whose cause is the answer (the message, and
 * the program's logs), which the turn gives the model as an error it reads.
 *
 * @throws {ToolError} `invalid_argument` when no code mode is given.
 */
export function codeModeLocalTools(code: CodeModeRunner | undefined): CodeModeLocalTool[] {
  return codeModeTools(requireCodeMode(code)).map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    run: async (args, { signal, meta }) => {
      const result = await tool.run(args, {
        ...(signal === undefined ? {} : { signal }),
        ...(meta === undefined ? {} : { meta }),
      });
      const { code: errorCode, structuredContent, ...answer } = result;
      // With logs, the model reads the text blocks (value, then logs): structured content
      // would stand in for them (Gemini's output, for one) and hide the logs.
      const structured = result.content.length > 1 ? undefined : structuredContent;
      const mcpResult = {
        ...answer,
        content: [...result.content],
        ...(structured === undefined ? {} : { structuredContent: structured }),
      };
      if (result.isError === true) {
        const first = result.content[0];
        throw new ToolError(
          (errorCode as ToolError['code'] | undefined) ?? 'execution',
          first?.type === 'text' ? first.text : `${tool.name} failed`,
          { cause: mcpResult },
        );
      }
      return { structured, mcpResult };
    },
  }));
}
