import { shownValue } from '@toolplane/toolmodel/text';
import {
  acceptedPart,
  exposedOf,
  joinOptionKeys,
  runCalls,
  RUN_CALLS_OPTION_KEYS,
  type CallOutcome,
  type ExposedTools,
  type RunCallsOptions,
  type ToolCallRequest,
  type ToolSource,
} from '@toolplane/adapter-kit';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type {
  ResponseFunctionCallOutputItem,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { optionKeys, ToolError } from '@toolplane/toolmodel';
import {
  chatTools,
  checkOpenAIOptions,
  OPENAI_TOOLS_OPTION_KEYS,
  responsesTools,
  type OpenAIToolsOptions,
} from './tools.js';

/** Options of {@link runToolCalls}. */
export interface RunToolCallsOptions extends RunCallsOptions, OpenAIToolsOptions {
  /**
   * The list {@link toOpenAITools} or {@link toOpenAIResponsesTools} made for this request: names
   * map back through it. Without it the source is listed again with the same filter and naming.
   */
  readonly tools?: readonly object[];
}

const RUN_OPTION_KEYS = joinOptionKeys(
  RUN_CALLS_OPTION_KEYS,
  OPENAI_TOOLS_OPTION_KEYS,
  optionKeys<Omit<RunToolCallsOptions, keyof RunCallsOptions | keyof OpenAIToolsOptions>>({
    tools: true,
  }),
);

/** A Chat Completions message, or a completion (its first choice is read). */
export interface ChatTurn {
  readonly choices?: readonly {
    readonly message: ChatMessageLike;
    readonly finish_reason?: string | null;
  }[];
  readonly tool_calls?: ChatMessageLike['tool_calls'];
}

interface ChatMessageLike {
  readonly tool_calls?:
    | readonly {
        readonly id: string;
        readonly type: string;
        readonly function?: { readonly name: string; readonly arguments: string };
      }[]
    | null;
}

/** A Responses API response, or its output items. */
export interface ResponsesTurn {
  readonly output: readonly { readonly type: string }[];
}

/** What a Function call output item is in the Responses API. */
export type FunctionCallOutput = ResponseInputItem.FunctionCallOutput;

/**
 * Runs every function call of a model turn through toolplane (in parallel, at most
 * `concurrency` at once, each with its own timeout and the caller's signal) and returns exactly
 * what to append to the conversation: for a Chat Completions turn, one `tool` message per call
 * (and, when tools returned images, one `user` message carrying them, since tool messages take
 * only text); for a Responses turn, one `function_call_output` item per call, images as
 * `input_image`. Malformed JSON arguments, unknown names and failing tools are answered to the
 * model as errors it can read, never thrown; so is a call the reply's token limit cut off
 * (`finish_reason: 'length'`, a function call `incomplete`), which is never run.
 *
 * @throws {ToolError} `invalid_argument` for a turn that is not an object, an option it does not
 * know, or one {@link toOpenAITools} or the turn's bounds refuse; `cancelled` when `signal` aborts.
 */
export function runToolCalls(
  source: ToolSource,
  turn: ResponsesTurn,
  options?: RunToolCallsOptions,
): Promise<FunctionCallOutput[]>;
export function runToolCalls(
  source: ToolSource,
  turn: ChatTurn,
  options?: RunToolCallsOptions,
): Promise<ChatCompletionMessageParam[]>;
export async function runToolCalls(
  source: ToolSource,
  turn: ChatTurn | ResponsesTurn,
  options: RunToolCallsOptions = {},
): Promise<ChatCompletionMessageParam[] | FunctionCallOutput[]> {
  checkOpenAIOptions(source, options, RUN_OPTION_KEYS, 'runToolCalls');
  // From JavaScript, a reply that failed may come as undefined or null.
  const given: unknown = turn;
  if (typeof given !== 'object' || given === null) {
    throw new ToolError(
      'invalid_argument',
      `runToolCalls takes a completion, its message or a Responses response, got ${shownValue(turn)}`,
    );
  }
  if ('output' in turn && Array.isArray(turn.output)) {
    const calls: ToolCallRequest[] = [];
    const reason = (turn as { incomplete_details?: { reason?: unknown } | null }).incomplete_details
      ?.reason;
    for (const item of turn.output as ResponsesTurn['output']) {
      if (item.type !== 'function_call') continue;
      const call = item as {
        call_id?: unknown;
        name?: unknown;
        arguments?: unknown;
        status?: unknown;
      };
      calls.push({
        callId: typeof call.call_id === 'string' ? call.call_id : '',
        name: typeof call.name === 'string' ? call.name : '',
        arguments: call.arguments,
        // A response stopped at its output limit leaves the call it was writing incomplete.
        ...(call.status === 'incomplete'
          ? { cutOff: typeof reason === 'string' ? reason : 'incomplete' }
          : {}),
      });
    }
    const exposed = exposedOf(options.tools) ?? listExposed(source, options, 'responses');
    return (await runCalls(source, calls, exposed, options)).map((outcome) =>
      toFunctionCallOutput(forOpenAI(outcome)),
    );
  }
  const chat = turn as ChatTurn;
  const choice = chat.choices?.[0];
  const message = chat.choices === undefined ? chat : choice?.message;
  const calls: ToolCallRequest[] = [];
  const list = message?.tool_calls ?? [];
  // A completion stopped at its token limit (or by the content filter) was writing its last
  // call's arguments.
  const finish = choice?.finish_reason;
  const cutOff = finish === 'length' || finish === 'content_filter' ? finish : undefined;
  list.forEach((call, at) => {
    if (call.type !== 'function' || call.function === undefined) return;
    calls.push({
      callId: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      ...(cutOff !== undefined && at === list.length - 1 ? { cutOff } : {}),
    });
  });
  if (calls.length === 0) return [];
  const exposed = exposedOf(options.tools) ?? listExposed(source, options, 'chat');
  return toChatMessages((await runCalls(source, calls, exposed, options)).map(forOpenAI));
}

/** The tools exposed when no list made by this package is passed: the source, listed again. */
function listExposed(
  source: ToolSource,
  options: RunToolCallsOptions,
  api: 'chat' | 'responses',
): ExposedTools {
  const list = api === 'chat' ? chatTools(source, options) : responsesTools(source, options);
  return exposedOf(list) as ExposedTools;
}

function errorText(outcome: CallOutcome, text: string): string {
  if (!outcome.isError) return text;
  return outcome.code === undefined || text.startsWith(`${outcome.code}:`)
    ? `Error: ${text}`
    : `Error (${outcome.code}): ${text}`;
}

/** The image types OpenAI takes in a message; one of another type fails the whole request. */
const IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** `outcome` with its images of a type OpenAI does not take as notes. */
function forOpenAI(outcome: CallOutcome): CallOutcome {
  if (!outcome.parts.some((part) => part.type === 'image' && !IMAGE_TYPES.has(part.mimeType))) {
    return outcome;
  }
  return {
    ...outcome,
    parts: outcome.parts.map((part) => acceptedPart(part, IMAGE_TYPES, 'OpenAI')),
  };
}

function dataUrl(part: { data: string; mimeType: string }): string {
  return `data:${part.mimeType};base64,${part.data}`;
}

/** Tool messages, and one user message with the images tool messages cannot carry. */
function toChatMessages(outcomes: readonly CallOutcome[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  const images: ChatCompletionContentPart[] = [];
  for (const outcome of outcomes) {
    const { parts } = outcome;
    const only = parts.length === 1 ? parts[0] : undefined;
    if (only?.type === 'text' || parts.length === 0) {
      // The usual answer, one text (or nothing): no arrays to build.
      messages.push({
        role: 'tool',
        tool_call_id: outcome.callId,
        content: errorText(outcome, only?.type === 'text' ? only.text : ''),
      });
      continue;
    }
    const texts: string[] = [];
    let attached = 0;
    for (const part of outcome.parts) {
      if (part.type === 'text') texts.push(part.text);
      else {
        if (attached === 0) {
          images.push({
            type: 'text',
            text: `Images returned by tool call ${outcome.callId} (${outcome.name}):`,
          });
        }
        attached++;
        images.push({ type: 'image_url', image_url: { url: dataUrl(part) } });
      }
    }
    if (attached > 0) {
      texts.push(
        `[${attached} image${attached === 1 ? '' : 's'} attached in the next user message]`,
      );
    }
    messages.push({
      role: 'tool',
      tool_call_id: outcome.callId,
      content: errorText(outcome, texts.join('\n')),
    });
  }
  if (images.length > 0) messages.push({ role: 'user', content: images });
  return messages;
}

function toFunctionCallOutput(outcome: CallOutcome): FunctionCallOutput {
  const hasImage = outcome.parts.some((part) => part.type === 'image');
  if (!hasImage) {
    const text = outcome.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    return {
      type: 'function_call_output',
      call_id: outcome.callId,
      output: errorText(outcome, text),
    };
  }
  const items: ResponseFunctionCallOutputItem[] = outcome.parts.map((part) =>
    part.type === 'text'
      ? { type: 'input_text', text: part.text }
      : { type: 'input_image', image_url: dataUrl(part), detail: 'auto' },
  );
  if (outcome.isError)
    items.unshift({ type: 'input_text', text: `Error (${outcome.code ?? 'tool'}):` });
  return { type: 'function_call_output', call_id: outcome.callId, output: items };
}
