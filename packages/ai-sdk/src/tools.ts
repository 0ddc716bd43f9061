import {
  checkAdapterOptions,
  checkArguments,
  maxOutputCharsOf,
  nameTools,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { ToolEntry } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { jsonSchema, type JSONSchema7, type Tool, type ToolSet } from 'ai';
import { executeOnce, executeThrough, type ExecuteOptions } from './execute.js';
import { modelOutputOf, outputOf, type AiSdkToolOutput } from './results.js';
import { codeModeTools } from './code-mode.js';
import { searchModeTools } from './search-mode.js';
import { AI_SDK_TOOLS_OPTION_KEYS, approvalPick, type AiSdkToolsOptions } from './tools-options.js';

/** One toolplane tool in an AI SDK {@link ToolSet}. */
export type AiSdkTool = Tool<Record<string, unknown>, AiSdkToolOutput>;

/**
 * The tools of a toolkit, or of a runner with its index, as an AI SDK `ToolSet` for
 * `generateText`, `streamText` and agents. Each tool keeps its description and JSON Schema (given
 * to the SDK without a validator: the runner validates arguments, once), runs through toolplane
 * with the step's abort signal, reports MCP progress as preliminary results, and tells the model
 * its result with `toModelOutput` (text, JSON, media; a failure as an error it can read).
 *
 * @throws {ToolError} `invalid_argument` for an option it does not know (or a selector, a naming
 * key, a `mode`); `cancelled` when `signal` aborts; the index's codes for a listing that fails.
 */
export function toAiSdkTools(
  source: ToolSource,
  options: AiSdkToolsOptions = {},
): Promise<ToolSet> {
  // Listing is synchronous today; the promise leaves room for sources that list over the wire.
  return Promise.resolve().then(() => buildTools(source, options));
}

function buildTools(source: ToolSource, given: AiSdkToolsOptions): ToolSet {
  checkAdapterOptions(given, AI_SDK_TOOLS_OPTION_KEYS, 'toAiSdkTools');
  checkArguments(source, given, 'toAiSdkTools');
  if (given.signal?.aborted === true) {
    throw new ToolError('cancelled', 'listing tools for the AI SDK was cancelled');
  }
  // A policy object is compiled once, here, for every tool.
  const pick = approvalPick(given.needsApproval);
  const options = pick === given.needsApproval ? given : { ...given, needsApproval: pick };
  if (options.mode === 'search') return searchModeTools(source, options);
  if (options.mode === 'code') return codeModeTools(options);
  const tools: ToolSet = {};
  for (const { name, entry } of nameTools(source.index, options)) {
    tools[name] = toAiSdkTool(source, entry, options);
  }
  return tools;
}

/** One toolplane tool as an AI SDK tool. */
function toAiSdkTool(source: ToolSource, entry: ToolEntry, options: AiSdkToolsOptions): AiSdkTool {
  const { id, tool } = entry;
  const description = tool.description ?? tool.title;
  const callOptions = (abortSignal: AbortSignal | undefined): ExecuteOptions => ({
    abortSignal,
    meta: options.meta,
  });
  const pick = options.needsApproval;
  const approval = typeof pick === 'function' ? pick(tool, id) : pick === true;
  const maxOutputChars = maxOutputCharsOf(options.maxOutputChars);
  return {
    ...(description === undefined ? {} : { description }),
    ...(approval ? { needsApproval: true } : {}),
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: jsonSchema<Record<string, unknown>>(tool.inputSchema as JSONSchema7),
    execute:
      options.progress === false
        ? (input, { abortSignal }) => executeOnce(source, id, input, callOptions(abortSignal))
        : (input, { abortSignal }) => executeThrough(source, id, input, callOptions(abortSignal)),
    toModelOutput: (argument) => modelOutputOf(outputOf(argument), maxOutputChars),
  };
}
