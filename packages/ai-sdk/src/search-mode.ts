import {
  describeTool,
  isExposed,
  prepareCall,
  SEARCH_MODE_TOOLS,
  searchTools,
  type SearchModeAnswer,
  type ToolSource,
} from '@toolplane/adapter-kit';
import { ToolError } from '@toolplane/toolmodel';
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from 'ai';
import { executeOnce, executeThrough } from './execute.js';
import { fromError, outputOf, toModelOutput, type ResultOutput } from './results.js';
import type { AiSdkToolsOptions } from './tools.js';

function args(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

function output(answer: SearchModeAnswer): ResultOutput {
  return { type: 'result', ...answer.result };
}

const [search, describe, call] = SEARCH_MODE_TOOLS;

/**
 * `search_tools`, `describe_tool` and `call_tool` as dynamic AI SDK tools over the source's
 * index, limited to the tools the filter lets through: the model searches the catalogue
 * (summaries only), reads the full schema of the few tools it wants, and calls them by ID. The
 * same three tools, with the same answers, as the gateway's search mode.
 */
export function searchModeTools(source: ToolSource, options: AiSdkToolsOptions): ToolSet {
  const modelOutput = (argument: unknown) => toModelOutput(outputOf(argument), options);
  const pick = options.needsApproval;
  // The tool a call_tool call names decides, as it would if it were exposed on its own.
  const approval =
    typeof pick === 'function'
      ? (input: unknown) => {
          const { id } = args(input);
          return isExposed(source, options, id) && pick(source.index.getTool(id).tool, id);
        }
      : pick === true
        ? true
        : undefined;
  return {
    [search.name]: dynamicTool({
      description: search.description,
      inputSchema: jsonSchema(search.inputSchema as JSONSchema7),
      execute: async (input, { abortSignal }) => {
        try {
          const result = await searchTools(source, options, args(input), {
            signal: abortSignal,
          });
          return { type: 'result', ...result } satisfies ResultOutput;
        } catch (error) {
          if (ToolError.isInstance(error) && error.code !== 'cancelled') return fromError(error);
          throw error;
        }
      },
      toModelOutput: modelOutput,
    }),
    [describe.name]: dynamicTool({
      description: describe.description,
      inputSchema: jsonSchema(describe.inputSchema as JSONSchema7),
      execute: (input) => output(describeTool(source, options, args(input))),
      toModelOutput: modelOutput,
    }),
    [call.name]: dynamicTool({
      ...(approval === undefined ? {} : { needsApproval: approval }),
      description: call.description,
      inputSchema: jsonSchema(call.inputSchema as JSONSchema7),
      execute: (input, { abortSignal }) => {
        const prepared = prepareCall(source, options, args(input));
        if (!prepared.ok) return output(prepared.answer);
        const callOptions = { abortSignal, meta: options.meta };
        return options.progress === false
          ? executeOnce(source, prepared.id, prepared.args, callOptions)
          : executeThrough(source, prepared.id, prepared.args, callOptions);
      },
      toModelOutput: modelOutput,
    }),
  };
}
