import { nameTools, type NameToolsOptions, type ToolSource } from '@toolplane/adapter-kit';
import type { ToolEntry } from '@toolplane/toolindex';
import { ToolError, type Tool as ToolmodelTool } from '@toolplane/toolmodel';
import { jsonSchema, type JSONSchema7, type Tool, type ToolSet } from 'ai';
import { executeOnce, executeThrough, type ExecuteOptions } from './execute.js';
import {
  outputOf,
  toModelOutput,
  type AiSdkToolOutput,
  type ModelOutputOptions,
} from './results.js';
import { searchModeTools } from './search-mode.js';

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions extends NameToolsOptions, ModelOutputOptions {
  /**
   * `'tools'` (default): one AI SDK tool per toolplane tool. `'search'`: only `search_tools`,
   * `describe_tool` and `call_tool`, so a model finds what it needs in a catalogue too big to
   * list in every request.
   */
  readonly mode?: 'tools' | 'search';
  /**
   * Surfaces MCP progress as preliminary tool results (default true): `execute` is then an async
   * iterable. Off, `execute` returns one promise, which is a little cheaper.
   */
  readonly progress?: boolean;
  /**
   * Which tools wait for the user's approval before they run (the AI SDK's `needsApproval`): all
   * (`true`), or those a function picks, e.g. `(tool) => tool.annotations?.destructiveHint !==
   * false`. In search mode, `call_tool` asks for approval when the tool it names would.
   */
  readonly needsApproval?: boolean | ((tool: ToolmodelTool, id: string) => boolean);
  /** Sent with every call as its `_meta`. */
  readonly meta?: Record<string, unknown>;
  readonly signal?: AbortSignal;
}

/** One toolplane tool in an AI SDK {@link ToolSet}. */
export type AiSdkTool = Tool<Record<string, unknown>, AiSdkToolOutput>;

/**
 * The tools of a toolkit, or of a runner with its index, as an AI SDK `ToolSet` for
 * `generateText`, `streamText` and agents. Each tool keeps its description and JSON Schema (given
 * to the SDK without a validator: the runner validates arguments, once), runs through toolplane
 * with the step's abort signal, reports MCP progress as preliminary results, and tells the model
 * its result with `toModelOutput` (text, JSON, media; a failure as an error it can read).
 *
 * @throws {ToolError} `cancelled` when `signal` aborts; the index's codes for a listing that fails.
 */
export function toAiSdkTools(
  source: ToolSource,
  options: AiSdkToolsOptions = {},
): Promise<ToolSet> {
  // Listing is synchronous today; the promise leaves room for sources that list over the wire.
  return Promise.resolve().then(() => buildTools(source, options));
}

function buildTools(source: ToolSource, options: AiSdkToolsOptions): ToolSet {
  if (options.signal?.aborted === true) {
    throw new ToolError('cancelled', 'listing tools for the AI SDK was cancelled');
  }
  if (options.mode === 'search') return searchModeTools(source, options);
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
  const approval =
    typeof options.needsApproval === 'function'
      ? options.needsApproval(tool, id)
      : options.needsApproval === true;
  return {
    ...(description === undefined ? {} : { description }),
    ...(approval ? { needsApproval: true } : {}),
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: jsonSchema<Record<string, unknown>>(tool.inputSchema as JSONSchema7),
    execute:
      options.progress === false
        ? (input, { abortSignal }) => executeOnce(source, id, input, callOptions(abortSignal))
        : (input, { abortSignal }) => executeThrough(source, id, input, callOptions(abortSignal)),
    toModelOutput: (argument) => toModelOutput(outputOf(argument), options),
  };
}
