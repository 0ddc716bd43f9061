import {
  bindExposed,
  checkAdapterCall,
  EXPOSE_OPTION_KEYS,
  exposeTools,
  joinOptionKeys,
  type ExposedTool,
  type ExposeOptions,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { optionKeys, ToolError } from '@toolplane/toolmodel';

/** Options of {@link toOpenAITools} and {@link toOpenAIResponsesTools}. */
export interface OpenAIToolsOptions extends ExposeOptions {
  /**
   * `true` (default): `strict: true` wherever the schema can be written for OpenAI's strict mode
   * (every property required, optional ones nullable, objects closed, `$ref` inlined), and
   * `strict: false` where it cannot. `false`: never strict.
   */
  readonly strict?: boolean;
}

/** Why a tool went out with `strict: false`, and what its schema could not express. */
export interface OpenAIToolReport {
  readonly name: string;
  readonly id: string;
  readonly strict: boolean;
  readonly reason?: string;
  readonly notes: readonly string[];
}

/** Every key of {@link OpenAIToolsOptions}. */
export const OPENAI_TOOLS_OPTION_KEYS = joinOptionKeys(
  EXPOSE_OPTION_KEYS,
  optionKeys<Omit<OpenAIToolsOptions, keyof ExposeOptions>>({ strict: true }),
);

/**
 * Checks what a function of this package was given: the source, the options' keys against
 * `known`, and `strict`.
 *
 * @throws {ToolError} `invalid_argument` naming `where`.
 */
export function checkOpenAIOptions(
  source: unknown,
  options: unknown,
  known: readonly string[],
  where: string,
): void {
  checkAdapterCall(source, options, known, where);
  const { strict } = options as { strict?: unknown };
  if (strict !== undefined && typeof strict !== 'boolean') {
    throw new ToolError('invalid_argument', `${where}: strict must be true or false`);
  }
}

const reports = new WeakMap<object, readonly OpenAIToolReport[]>();

function expose(source: ToolSource, options: OpenAIToolsOptions) {
  return exposeTools(source, options.strict === false ? 'openai' : 'openai-strict', options);
}

function report(list: object, tools: readonly ExposedTool[]): void {
  reports.set(
    list,
    tools.map((tool) => {
      const cut = (tool.description?.length ?? 0) > MAX_DESCRIPTION;
      return {
        name: tool.name,
        id: tool.id,
        strict: tool.schema.strict,
        ...(tool.schema.reason === undefined ? {} : { reason: tool.schema.reason }),
        notes: cut
          ? [
              ...tool.schema.notes,
              `description cut to OpenAI's ${String(MAX_DESCRIPTION)} characters`,
            ]
          : tool.schema.notes,
      };
    }),
  );
}

/** The longest function description OpenAI takes; a longer one fails the whole request. */
const MAX_DESCRIPTION = 1024;

/** `tool`'s description as OpenAI takes it: cut at a word to fit, ending `…`, when too long. */
function described(tool: ExposedTool): { description?: string } {
  const { description } = tool;
  if (description === undefined) return {};
  if (description.length <= MAX_DESCRIPTION) return { description };
  const room = description.slice(0, MAX_DESCRIPTION - 1);
  const space = room.lastIndexOf(' ');
  return { description: `${space > MAX_DESCRIPTION / 2 ? room.slice(0, space) : room}…` };
}

/**
 * The tools of a toolkit, or of a runner with its index, as Chat Completions function tools:
 * provider-legal names (`namespace__name`, shortened with a stable hash where needed), each
 * description, and each schema converted for OpenAI (strict where possible). Pass the same array
 * to {@link runToolCalls} as `tools` so names map back without listing again.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not know (or a selector, or a
 * `mode`), or a `strict` that is not a boolean; `cancelled` when `signal` is aborted; the
 * index's codes for a failed listing.
 */
export function toOpenAITools(
  source: ToolSource,
  options: OpenAIToolsOptions = {},
): Promise<ChatCompletionFunctionTool[]> {
  return Promise.resolve().then(() => {
    checkOpenAIOptions(source, options, OPENAI_TOOLS_OPTION_KEYS, 'toOpenAITools');
    return chatTools(source, options);
  });
}

/** {@link toOpenAITools} for options checked already (a run's, which has keys of its own). */
export function chatTools(
  source: ToolSource,
  options: OpenAIToolsOptions,
): ChatCompletionFunctionTool[] {
  const exposed = expose(source, options);
  const list = exposed.tools.map((tool): ChatCompletionFunctionTool => ({
    type: 'function',
    function: {
      name: tool.name,
      ...described(tool),
      parameters: tool.schema.schema,
      strict: tool.schema.strict,
    },
  }));
  report(list, exposed.tools);
  return bindExposed(list, exposed);
}

/**
 * The same tools as Responses API function tools (`{ type: 'function', name, parameters,
 * strict }`).
 *
 * @throws {ToolError} `invalid_argument` for options {@link toOpenAITools} refuses; `cancelled`
 * when `signal` is aborted; the index's codes for a failed listing.
 */
export function toOpenAIResponsesTools(
  source: ToolSource,
  options: OpenAIToolsOptions = {},
): Promise<FunctionTool[]> {
  return Promise.resolve().then(() => {
    checkOpenAIOptions(source, options, OPENAI_TOOLS_OPTION_KEYS, 'toOpenAIResponsesTools');
    return responsesTools(source, options);
  });
}

/** {@link toOpenAIResponsesTools} for options checked already. */
export function responsesTools(source: ToolSource, options: OpenAIToolsOptions): FunctionTool[] {
  const exposed = expose(source, options);
  const list = exposed.tools.map((tool): FunctionTool => ({
    type: 'function',
    name: tool.name,
    ...described(tool),
    parameters: tool.schema.schema,
    strict: tool.schema.strict,
  }));
  report(list, exposed.tools);
  return bindExposed(list, exposed);
}

/**
 * For a list made by {@link toOpenAITools} or {@link toOpenAIResponsesTools}: per tool, whether
 * it is strict, why not, and what its schema could not express (empty for other lists).
 */
export function openAIToolReport(tools: object): readonly OpenAIToolReport[] {
  return reports.get(tools) ?? [];
}
