import type {
  UpstreamRequest,
  UpstreamRequestContext,
  UpstreamRequestHandler,
} from '@toolplane/toolkit';
import { checkCount, optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import {
  generateText,
  type AssistantContent,
  type LanguageModel,
  type ModelMessage,
  type UserContent,
} from 'ai';

type CreateMessageRequest = Extract<UpstreamRequest, { method: 'sampling/createMessage' }>;
type CreateMessageParams = CreateMessageRequest['params'];
type UpstreamAnswer = Awaited<ReturnType<UpstreamRequestHandler['handle']>>;
/** What an MCP server says of the model it would like: hints by name and three priorities. */
export type ModelPreferences = NonNullable<CreateMessageParams['modelPreferences']>;

/** Picks the model for one sampling request from the server's preferences. */
export type ModelChooser = (
  preferences: ModelPreferences | undefined,
  request: CreateMessageParams,
) => LanguageModel | PromiseLike<LanguageModel>;

/** Options of {@link createAiSdkSamplingHandler}. */
export interface AiSdkSamplingOptions {
  /** The most tokens any request may ask for; a larger `maxTokens` is lowered to it. */
  readonly maxTokensCap?: number;
}

const KNOWN = optionKeys<AiSdkSamplingOptions>({ maxTokensCap: true });

/**
 * An upstream request handler (for `createToolkit({ upstreamRequests })` or a connector) that
 * answers MCP servers' `sampling/createMessage` with an AI SDK language model through
 * `generateText`: the system prompt, the messages (text, images, audio), `maxTokens`,
 * `temperature` and `stopSequences` are passed on, and the server's model preferences go to
 * `chooser` when a chooser is given instead of a model. Cancelling the request (the server's
 * `notifications/cancelled`, or the connection ending) aborts the generation.
 *
 * Throws `invalid_argument` at once for an option it does not know, or a `maxTokensCap` that is
 * not a whole number of 1 or more.
 *
 * @throws {ToolError} `invalid_argument` for an elicitation request (the handler offers sampling
 * only) or a message it cannot read; the model's own errors are wrapped as `execution`.
 */
export function createAiSdkSamplingHandler(
  model: LanguageModel | ModelChooser,
  options: AiSdkSamplingOptions = {},
): UpstreamRequestHandler {
  refuseUnknownOptions(options, KNOWN, 'createAiSdkSamplingHandler');
  const cap = options.maxTokensCap;
  if (cap !== undefined) checkCount(cap, 'createAiSdkSamplingHandler: maxTokensCap');
  return {
    capabilities: { sampling: true },
    async handle(request: UpstreamRequest, context: UpstreamRequestContext) {
      if (request.method !== 'sampling/createMessage') {
        throw new ToolError(
          'invalid_argument',
          `this handler answers sampling/createMessage only, not ${request.method}`,
        );
      }
      const params = request.params;
      const chosen =
        typeof model === 'function' ? await model(params.modelPreferences, params) : model;
      const maxOutputTokens =
        cap === undefined ? params.maxTokens : Math.min(cap, params.maxTokens);
      let result;
      try {
        result = await generateText({
          model: chosen,
          ...(params.systemPrompt === undefined ? {} : { system: params.systemPrompt }),
          messages: params.messages.map(toModelMessage),
          maxOutputTokens,
          ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
          ...(params.stopSequences === undefined ? {} : { stopSequences: params.stopSequences }),
          abortSignal: context.signal,
          maxRetries: 0,
        });
      } catch (error) {
        if (context.signal.aborted) {
          throw new ToolError('cancelled', 'the sampling request was cancelled', { cause: error });
        }
        throw new ToolError(
          'execution',
          `the model failed to answer the sampling request: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      const answer: UpstreamAnswer = {
        role: 'assistant',
        content: { type: 'text', text: result.text },
        model: result.response.modelId,
        stopReason: stopReasonOf(result.finishReason),
      };
      return answer;
    },
  };
}

function stopReasonOf(reason: string): string {
  switch (reason) {
    case 'stop':
      return 'endTurn';
    case 'length':
      return 'maxTokens';
    case 'tool-calls':
      return 'toolUse';
    default:
      return reason;
  }
}

type SamplingMessage = CreateMessageParams['messages'][number];
type SamplingBlock = SamplingMessage['content'] extends infer C
  ? C extends readonly (infer B)[]
    ? B
    : C
  : never;

function blocksOf(message: SamplingMessage): readonly SamplingBlock[] {
  const content = message.content as SamplingBlock | readonly SamplingBlock[];
  return Array.isArray(content)
    ? (content as readonly SamplingBlock[])
    : [content as SamplingBlock];
}

/** An MCP sampling message as an AI SDK message: text as text, images and audio as files. */
function toModelMessage(message: SamplingMessage): ModelMessage {
  const parts = blocksOf(message).map((block) => {
    switch (block.type) {
      case 'text':
        return { type: 'text' as const, text: block.text };
      case 'image':
        return message.role === 'user'
          ? { type: 'image' as const, image: block.data, mediaType: block.mimeType }
          : { type: 'file' as const, data: block.data, mediaType: block.mimeType };
      case 'audio':
        return { type: 'file' as const, data: block.data, mediaType: block.mimeType };
      default:
        // Tool use and tool results of a server-run tool loop: told to the model as JSON.
        return { type: 'text' as const, text: JSON.stringify(block) };
    }
  });
  return message.role === 'user'
    ? { role: 'user', content: parts as UserContent }
    : { role: 'assistant', content: parts as AssistantContent };
}
