import {
  codeModeTools as kitCodeModeTools,
  maxOutputCharsOf,
  requireCodeMode,
} from '@toolplane/adapter-kit';
import { ToolError } from '@toolplane/toolmodel';
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from 'ai';
import { modelOutputOf, outputOf, type ResultOutput } from './results.js';
import type { AiSdkToolsOptions } from './tools-options.js';

function args(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/**
 * `search_tools`, `describe_tool` and `run_code` as dynamic AI SDK tools over
 * `options.codeMode`: the model searches the tools, reads the TypeScript declaration of those it
 * wants, and writes one program that calls them all in the sandbox. The same three tools, with
 * the same answers, as the gateway's code mode; a failed program is an error the model reads,
 * with its logs. With any `needsApproval` rule, `run_code` asks for approval: its program may
 * call any tool code mode lets it.
 *
 * @throws {ToolError} `invalid_argument` when `codeMode` is missing.
 */
export function codeModeTools(options: AiSdkToolsOptions): ToolSet {
  const code = requireCodeMode(options.codeMode);
  const maxOutputChars = maxOutputCharsOf(options.maxOutputChars);
  const modelOutput = (argument: unknown) => modelOutputOf(outputOf(argument), maxOutputChars);
  const tools: ToolSet = {};
  for (const tool of kitCodeModeTools(code)) {
    // A program may call any tool it can reach, so with any approval rule run_code asks.
    const pick = options.needsApproval;
    const approval = tool.name === 'run_code' && pick !== undefined && pick !== false;
    tools[tool.name] = dynamicTool({
      ...(approval ? { needsApproval: true } : {}),
      description: tool.description,
      inputSchema: jsonSchema(tool.inputSchema as JSONSchema7),
      execute: async (input, { abortSignal }): Promise<ResultOutput> => {
        const result = await tool.run(args(input), {
          ...(abortSignal === undefined ? {} : { signal: abortSignal }),
          ...(options.meta === undefined ? {} : { meta: options.meta }),
        });
        // A step the caller aborted stays thrown, as search mode's and every tool's does.
        if (result.code === 'cancelled' && abortSignal?.aborted === true) {
          throw new ToolError('cancelled', 'the run was cancelled', { cause: abortSignal.reason });
        }
        // With logs, the model reads the text blocks (value, then logs): structured content
        // would stand in for them and hide the logs.
        const { structuredContent, ...rest } = result;
        return result.content.length > 1 || structuredContent === undefined
          ? { type: 'result', ...rest }
          : { type: 'result', ...rest, structuredContent };
      },
      toModelOutput: modelOutput,
    });
  }
  return tools;
}
