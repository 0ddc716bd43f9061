import {
  describeTool,
  isExposed,
  jsonResult,
  maxOutputCharsOf,
  prepareCall,
  SEARCH_MODE_TOOLS,
  searchTools,
  type PreparedCall,
  type ToolSource,
} from '@toolplane/adapter-kit';
import { ToolError } from '@toolplane/toolmodel';
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from 'ai';
import { executeOnce, executeThrough } from './execute.js';
import { fromError, modelOutputOf, outputOf, type ResultOutput } from './results.js';
import { approvalPick, type AiSdkToolsOptions } from './tools-options.js';

function args(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

function json(value: Record<string, unknown>): ResultOutput {
  return { type: 'result', ...jsonResult(value) };
}

/** A failure of the shared core as an error result the model reads; cancellation stays thrown. */
function refused(error: unknown): ResultOutput {
  if (ToolError.isInstance(error) && error.code !== 'cancelled') return fromError(error);
  throw error;
}

const [search, describe, call] = SEARCH_MODE_TOOLS;

/**
 * `search_tools`, `describe_tool` and `call_tool` as dynamic AI SDK tools over the source's
 * index, limited to the tools the filter lets through: the model searches the catalogue
 * (summaries only), reads the full schema of the few tools it wants, and calls them by ID. The
 * same three tools, with the same answers, as the gateway's search mode.
 */
export function searchModeTools(source: ToolSource, options: AiSdkToolsOptions): ToolSet {
  const maxOutputChars = maxOutputCharsOf(options.maxOutputChars);
  const modelOutput = (argument: unknown) => modelOutputOf(outputOf(argument), maxOutputChars);
  const pick = approvalPick(options.needsApproval);
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
          return json(await searchTools(source, options, args(input), { signal: abortSignal }));
        } catch (error) {
          return refused(error);
        }
      },
      toModelOutput: modelOutput,
    }),
    [describe.name]: dynamicTool({
      description: describe.description,
      inputSchema: jsonSchema(describe.inputSchema as JSONSchema7),
      execute: (input) => {
        try {
          return json(describeTool(source, options, args(input)));
        } catch (error) {
          return refused(error);
        }
      },
      toModelOutput: modelOutput,
    }),
    [call.name]: dynamicTool({
      ...(approval === undefined ? {} : { needsApproval: approval }),
      description: call.description,
      inputSchema: jsonSchema(call.inputSchema as JSONSchema7),
      execute: (input, { abortSignal }) => {
        let prepared: PreparedCall;
        try {
          prepared = prepareCall(source, options, args(input));
        } catch (error) {
          return refused(error);
        }
        const callOptions = { abortSignal, meta: options.meta };
        return options.progress === false
          ? executeOnce(source, prepared.id, prepared.args, callOptions)
          : executeThrough(source, prepared.id, prepared.args, callOptions);
      },
      toModelOutput: modelOutput,
    }),
  };
}
