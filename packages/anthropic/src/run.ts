import { shownValue } from '@toolplane/toolmodel/text';
import {
  acceptedPart,
  checkAdapterCall,
  EXPOSE_OPTION_KEYS,
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
  ImageBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { optionKeys, ToolError } from '@toolplane/toolmodel';
import { anthropicTools, type AnthropicToolsOptions } from './tools.js';

/** Options of {@link runToolUses}. */
export interface RunToolUsesOptions extends RunCallsOptions, AnthropicToolsOptions {
  /**
   * The list {@link toAnthropicTools} made for this request: names map back through it. Without
   * it the source is listed again with the same filter and naming.
   */
  readonly tools?: readonly object[];
}

const RUN_OPTION_KEYS = joinOptionKeys(
  RUN_CALLS_OPTION_KEYS,
  EXPOSE_OPTION_KEYS,
  optionKeys<Omit<RunToolUsesOptions, keyof RunCallsOptions | keyof AnthropicToolsOptions>>({
    tools: true,
  }),
);

/** A Messages API message (its `content` blocks and `stop_reason`), or the blocks themselves. */
export type AnthropicTurn =
  | { readonly content: readonly { readonly type: string }[]; readonly stop_reason?: string | null }
  | readonly { readonly type: string }[];

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The stop reasons of a reply cut short while it was being written: by a token limit, or by the
 * safety classifiers (`refusal`), which stop a streamed reply where it stands.
 */
const CUT_OFF: ReadonlySet<string> = new Set([
  'max_tokens',
  'model_context_window_exceeded',
  'refusal',
]);

/** Where `@anthropic-ai/sdk`'s message stream keeps a tool_use block's JSON text. */
const JSON_BUF = '__json_buf';

/**
 * Runs every `tool_use` block of an assistant message through toolplane (in parallel, at most
 * `concurrency` at once, each with its own timeout and the caller's signal) and returns the
 * `tool_result` blocks to send back, in order, as the content of the next user message: text and
 * image blocks, `is_error` for a failed tool, for malformed input, for an unknown name and for a
 * timeout. A message that stopped at a token limit (`max_tokens`) while writing its last
 * `tool_use` gets that call answered as cut off, never run. Nothing but cancellation is thrown.
 *
 * @throws {ToolError} `invalid_argument` for a message that is none, an option it does not know,
 * or one {@link toAnthropicTools} or the turn's bounds refuse; `cancelled` when `signal` aborts.
 */
export async function runToolUses(
  source: ToolSource,
  message: AnthropicTurn,
  options: RunToolUsesOptions = {},
): Promise<ToolResultBlockParam[]> {
  checkAdapterCall(source, options, RUN_OPTION_KEYS, 'runToolUses');
  const given: unknown = Array.isArray(message)
    ? message
    : (message as { content?: unknown } | null | undefined)?.content;
  if (
    !Array.isArray(given) ||
    !given.every((block) => typeof block === 'object' && block !== null)
  ) {
    throw new ToolError(
      'invalid_argument',
      `runToolUses takes a Messages API message ({ content: [...] }) or its content blocks, got ${shownValue(message)}`,
    );
  }
  const blocks = given as readonly { readonly type: string }[];
  const stop: unknown = Array.isArray(message)
    ? undefined
    : (message as { stop_reason?: unknown }).stop_reason;
  // A reply stopped short ends with the block it was writing: a tool_use last is cut.
  const cutOff = typeof stop === 'string' && CUT_OFF.has(stop) ? stop : undefined;
  const calls: ToolCallRequest[] = [];
  blocks.forEach((block, at) => {
    if (block.type !== 'tool_use') return;
    const use = block as { id?: unknown; name?: unknown; input?: unknown };
    // The SDK's stream keeps the JSON text it read as `__json_buf` and reads `input` from it
    // with a lenient parser, which makes a cut-off text a valid-looking object: the text itself
    // is parsed strictly instead. Without it, the input is taken as given (or as JSON text).
    const text = (use as { [JSON_BUF]?: unknown })[JSON_BUF];
    calls.push({
      callId: typeof use.id === 'string' ? use.id : '',
      name: typeof use.name === 'string' ? use.name : '',
      arguments: typeof text === 'string' ? text : use.input,
      ...(cutOff !== undefined && at === blocks.length - 1 ? { cutOff } : {}),
    });
  });
  if (calls.length === 0) return [];
  const exposed = exposedOf(options.tools) ?? listExposed(source, options);
  return (await runCalls(source, calls, exposed, options)).map(toToolResult);
}

function toToolResult(outcome: CallOutcome): ToolResultBlockParam {
  const content: (TextBlockParam | ImageBlockParam)[] = [];
  for (const original of outcome.parts) {
    const part = acceptedPart(original, IMAGE_TYPES, 'Anthropic');
    if (part.type === 'text') {
      // Anthropic refuses a text block of whitespace alone.
      if (part.text.trim() !== '') content.push({ type: 'text', text: part.text });
    } else {
      content.push({
        type: 'image',
        source: {
          type: 'base64',
          media_type: part.mimeType as 'image/png',
          data: part.data,
        },
      });
    }
  }
  // …and an error result without content: a failure that said nothing says that it failed.
  if (outcome.isError && content.length === 0) {
    content.push({
      type: 'text',
      text: `the tool failed${outcome.code === undefined ? '' : ` (${outcome.code})`} without saying why`,
    });
  }
  const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: outcome.callId };
  if (content.length > 0) result.content = content;
  if (outcome.isError) result.is_error = true;
  return result;
}

/** The tools exposed when no list made by this package is passed: the source, listed again. */
function listExposed(source: ToolSource, options: RunToolUsesOptions): ExposedTools {
  return exposedOf(anthropicTools(source, options)) as ExposedTools;
}
