import {
  callThrough,
  checkAdapterOptions,
  passes,
  type ToolFilter,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type { Resource, ToolkitDelegate, ToolkitEvent, ToolkitPrompt } from '@toolplane/toolkit';
import {
  checkCount,
  createValidator,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
  type JsonSchema,
} from '@toolplane/toolmodel';
import {
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  stepCountIs,
  type GenerateTextOnStepFinishCallback,
  type JSONSchema7,
  type LanguageModel,
  type ToolSet,
} from 'ai';
import { toModelMessages } from './prompt-messages.js';
import { resolvePromptTools } from './prompt-tools.js';
import { providerOf, thinkingOptions } from './thinking.js';
import { toAiSdkTools } from './tools.js';
import { AI_SDK_TOOLS_OPTION_KEYS, type AiSdkToolsOptions } from './tools-options.js';

/** What a {@link AgentModelChooser} is asked: the model and provider a prompt names. */
export interface AgentModelRequest {
  /** The prompt's `model` (front matter), e.g. `gpt-5-mini`; undefined when it names none. */
  readonly model: string | undefined;
  /** The prompt's `provider` (front matter), e.g. `openai`. */
  readonly provider: string | undefined;
  /** The prompt being run. */
  readonly prompt: ToolkitPrompt;
}

/**
 * Picks the AI SDK language model that runs a prompt; `undefined` when none fits, which fails the
 * call with `not_found`.
 */
export type AgentModelChooser = (
  request: AgentModelRequest,
) => LanguageModel | undefined | PromiseLike<LanguageModel | undefined>;

/** Options of {@link createAiSdkDelegate}. */
export interface AiSdkDelegateOptions {
  /**
   * Where the agent's tools come from: usually the toolkit the delegate is given to. A function
   * is read on each call, so the delegate can be made before the toolkit:
   * `source: () => toolkit`.
   */
  readonly source: ToolSource | (() => ToolSource);
  /** Picks the model from the prompt's front matter (`model`, `provider`). */
  readonly chooseModel: AgentModelChooser;
  /** Step limit for prompts that set none (`max_steps`); default {@link DEFAULT_AGENT_STEPS}. */
  readonly maxSteps?: number;
  /**
   * How the toolkit's tools are offered ({@link toAiSdkTools} options): the filter here applies to
   * every prompt, and each prompt's own `tools` (IDs), namespaces and tags narrow it further.
   */
  readonly tools?: Omit<AiSdkToolsOptions, 'signal'>;
  /** Attempts per model call, as `generateText`'s `maxRetries` (default 2). */
  readonly maxRetries?: number;
  /** Hears each finished step: its tool calls, results and text. */
  readonly onStepFinish?: GenerateTextOnStepFinishCallback<ToolSet>;
  /** Hears the toolkit's events (the delegate's `onEvent`). */
  readonly onEvent?: (event: ToolkitEvent) => void;
}

/** Steps a prompt may take when neither it nor the options set a limit. */
export const DEFAULT_AGENT_STEPS = 10;

const KNOWN = optionKeys<AiSdkDelegateOptions>({
  source: true,
  chooseModel: true,
  maxSteps: true,
  tools: true,
  maxRetries: true,
  onStepFinish: true,
  onEvent: true,
});

// The delegate passes each call's own signal.
const TOOLS_KEYS = AI_SDK_TOOLS_OPTION_KEYS.filter((key) => key !== 'signal');

let outputValidator: ReturnType<typeof createValidator> | undefined;

/**
 * A toolkit delegate (`createToolkit({ delegate })`) that runs prompts as agents with any AI SDK
 * language model and the toolkit's own tools: the prompt is rendered, the model is picked from its
 * front matter by `chooseModel`, and `generateText` calls tools (through {@link toAiSdkTools},
 * narrowed to the prompt's `tools`, namespaces and tags) until the model answers or the step
 * limit is reached. A prompt with an `output` schema answers a JSON value checked against it;
 * otherwise the answer is the model's text. The call's signal aborts the model and the tool calls
 * in flight; tool calls nest under the prompt's call, so `maxCallDepth` holds.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not know (or one of `tools` that
 * {@link toAiSdkTools} refuses), a `maxSteps` that is not a positive integer, or a `maxRetries`
 * that is not a whole number of 0 or more. From
 * the delegate's `call`: `not_found` when `chooseModel` gives no model for the prompt's model and
 * provider; `invalid_prompt` when its `tools` name a tool the toolkit lacks or two tools at once; `step_limit_exceeded`
 * when the model still calls tools at the last step; `call_depth_exceeded` for a prompt → tool →
 * prompt loop past the toolkit's `maxCallDepth`; `output_validation` when the answer breaks the
 * prompt's output schema; `cancelled` when the call's signal aborts; `execution` wrapping the
 * model's and `chooseModel`'s own errors; the toolkit's codes for a prompt that fails to render.
 */
export function createAiSdkDelegate(options: AiSdkDelegateOptions): ToolkitDelegate {
  refuseUnknownOptions(options, KNOWN, 'createAiSdkDelegate');
  if (options.tools !== undefined) {
    checkAdapterOptions(options.tools, TOOLS_KEYS, 'createAiSdkDelegate: tools');
  }
  if (options.maxSteps !== undefined) checkCount(options.maxSteps, 'createAiSdkDelegate: maxSteps');
  const { maxRetries } = options;
  // generateText would refuse it on every call of every prompt, not here where it was given.
  if (maxRetries !== undefined) {
    checkCount(maxRetries, 'createAiSdkDelegate: maxRetries', { min: 0 });
  }
  const { onEvent } = options;
  return {
    call: (prompt, input, callOptions) => runPrompt(options, prompt, input, callOptions),
    ...(onEvent === undefined ? {} : { onEvent }),
  };
}

async function runPrompt(
  options: AiSdkDelegateOptions,
  prompt: ToolkitPrompt,
  input: Record<string, unknown>,
  call: { readonly resources: readonly Resource[]; readonly signal?: AbortSignal },
): Promise<unknown> {
  const { signal } = call;
  const key = `${prompt.namespace}:${prompt.name}`;
  const definition = prompt.prompt;
  let model: LanguageModel | undefined;
  try {
    model = await options.chooseModel({
      model: definition?.model,
      provider: definition?.provider,
      prompt,
    });
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    throw new ToolError(
      'execution',
      `prompt "${key}": chooseModel failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (model === undefined) {
    const named =
      definition?.model === undefined
        ? 'names no model'
        : `names model ${JSON.stringify(definition.model)}${definition.provider === undefined ? '' : ` of ${JSON.stringify(definition.provider)}`}`;
    throw new ToolError(
      'not_found',
      `prompt "${key}" ${named}, and chooseModel gave no model for it; return a model from chooseModel`,
    );
  }
  // The toolkit checked the prompt's own limit when it took the prompt.
  const maxSteps = definition?.maxSteps ?? options.maxSteps ?? DEFAULT_AGENT_STEPS;
  const rendered = await prompt.render(input, signal === undefined ? {} : { signal });
  // A prompt → tool → prompt loop past the depth limit is no error the model can fix: it ends
  // the run, and the caller gets call_depth_exceeded itself.
  const stop = new AbortController();
  const tripped: { error?: ToolError } = {};
  const onDepth = (error: ToolError): void => {
    tripped.error ??= error;
    stop.abort(error);
  };
  const abortSignal = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
  const whole = sourceOf(options);
  const source = narrow(whole, promptFilter(whole, definition, key), onDepth);
  const tools = await toAiSdkTools(source, {
    ...options.tools,
    ...(signal === undefined ? {} : { signal }),
  });
  const outputSchema = definition?.output;
  const structured = isObjectSchema(outputSchema);
  const thinking = thinkingOptions(providerOf(model, definition?.provider), {
    thinking: definition?.thinking,
    thinkingBudget: definition?.thinkingBudget,
  });
  let result;
  try {
    result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(maxSteps),
      ...(rendered.systemPrompt === undefined ? {} : { system: rendered.systemPrompt }),
      messages: toModelMessages(rendered.messages, call.resources),
      ...(definition?.maxTokens === undefined ? {} : { maxOutputTokens: definition.maxTokens }),
      ...(thinking === undefined ? {} : { providerOptions: thinking }),
      ...(structured ? { output: Output.object({ schema: jsonSchema(outputSchema) }) } : {}),
      abortSignal,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.onStepFinish === undefined ? {} : { onStepFinish: options.onStepFinish }),
    });
  } catch (error) {
    if (tripped.error !== undefined) throw tripped.error;
    if (signal?.aborted === true) {
      throw new ToolError('cancelled', `prompt "${key}" was cancelled`, { cause: error });
    }
    if (ToolError.isInstance(error)) throw error;
    if (NoObjectGeneratedError.isInstance(error)) {
      throw new ToolError(
        'output_validation',
        `prompt "${key}": the answer is not the JSON its output schema asks for: ${JSON.stringify((error.text ?? '').slice(0, 200))}`,
        { cause: error },
      );
    }
    throw new ToolError(
      'execution',
      `prompt "${key}": the model failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (tripped.error !== undefined) throw tripped.error;
  if (result.finishReason === 'tool-calls') {
    throw result.steps.length >= maxSteps
      ? new ToolError(
          'step_limit_exceeded',
          `prompt "${key}" reached its step limit (${maxSteps}) with the model still calling tools; raise max_steps or maxSteps`,
        )
      : new ToolError(
          'execution',
          `prompt "${key}": the model stopped on tool calls that were not run (tools needing approval cannot run inside a prompt)`,
        );
  }
  if (!structured) return result.text;
  let answer: unknown;
  try {
    answer = result.output;
  } catch (error) {
    // The SDK parses no answer when the last step did not finish normally (e.g. `length`).
    throw new ToolError(
      'output_validation',
      `prompt "${key}": the model gave no answer for its output schema (finish reason ${result.finishReason})`,
      { cause: error },
    );
  }
  const check = (outputValidator ??= createValidator()).validate(outputSchema, answer);
  if (!check.valid) {
    const first = check.errors[0];
    throw new ToolError(
      'output_validation',
      `prompt "${key}": the answer does not match its output schema${first === undefined ? '' : `: ${first.path || '/'} ${first.message}`}`,
      { errors: check.errors },
    );
  }
  return answer;
}

function sourceOf(options: AiSdkDelegateOptions): ToolSource {
  return typeof options.source === 'function' ? options.source() : options.source;
}

function isObjectSchema(schema: JsonSchema | undefined): schema is JSONSchema7 & JsonSchema {
  return typeof schema === 'object' && (schema as { type?: unknown }).type === 'object';
}

/** The tools a prompt asks for: its `tools` (IDs or bare names), namespaces and tags. */
function promptFilter(
  source: ToolSource,
  definition: ToolkitPrompt['prompt'],
  key: string,
): ToolFilter | undefined {
  const ids =
    definition?.tools === undefined
      ? undefined
      : resolvePromptTools(source.index, definition.tools, key);
  const namespaces = definition?.toolNamespaces;
  const tags = definition?.toolTags;
  if (ids === undefined && namespaces === undefined && tags === undefined) return undefined;
  return {
    include: {
      ...(ids === undefined ? {} : { ids }),
      ...(namespaces === undefined ? {} : { namespaces }),
      ...(tags === undefined ? {} : { tags }),
    },
  };
}

/**
 * The source with its index narrowed to what `filter` lets through, on top of whatever filter
 * the options give: listing, search mode's lookups and calls all see the narrower catalogue.
 * A call failing with `call_depth_exceeded` is reported to `onDepth`.
 */
function narrow(
  source: ToolSource,
  filter: ToolFilter | undefined,
  onDepth: (error: ToolError) => void,
): ToolSource {
  const { index } = source;
  const shown = (id: string): boolean =>
    index.hasTool(id) && (filter === undefined || passes(index.getTool(id), filter));
  return {
    runner: source.runner,
    index: {
      listTools: (request) => {
        const ids = filter?.include?.ids;
        // A prompt naming its tools is listed from those IDs alone, however big the catalogue.
        if (ids !== undefined && request?.cursor === undefined) {
          const entries = [...new Set(ids)]
            .sort()
            .filter(shown)
            .map((id) => index.getTool(id));
          return { entries };
        }
        const page = index.listTools(request);
        return filter === undefined
          ? page
          : { ...page, entries: page.entries.filter((entry) => passes(entry, filter)) };
      },
      search: (query, request) => index.search(query, request),
      hasTool: shown,
      getTool: (id) => index.getTool(id),
    },
    callTool: (id, input = {}, callOptions = {}) => {
      if (!shown(id)) {
        return Promise.reject(
          new ToolError('tool_not_found', `tool "${id}" is not one this prompt may use`),
        );
      }
      return callThrough(source, id, input, callOptions).catch((error: unknown) => {
        if (ToolError.isInstance(error) && error.code === 'call_depth_exceeded') onDepth(error);
        throw error;
      });
    },
  };
}
