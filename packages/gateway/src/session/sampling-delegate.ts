/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era features (logging, sampling, roots,
   initialize-scoped client identity), bridged for as long as clients and servers speak them */
import type { PromptMessage, SamplingMessage } from '@modelcontextprotocol/server';
import {
  getSession,
  toResourceContents,
  ToolError,
  type Resource,
  type Session,
  type ToolkitDelegate,
} from '@toolplane/toolkit';

/** What the toolkit's `Session.createMessage` takes. */
type CreateMessageRequestParams = Parameters<Session['createMessage']>[0];

/** Options of {@link createSamplingDelegate}. */
export interface SamplingDelegateOptions {
  /** `maxTokens` for prompts that set none (default 1024). */
  readonly maxTokens?: number;
  /** Hears the toolkit's events, as {@link ToolkitDelegate.onEvent}. */
  readonly onEvent?: ToolkitDelegate['onEvent'];
}

const DEFAULT_MAX_TOKENS = 1024;

/**
 * Creates a toolkit delegate that runs prompts on the model of the client whose call is in
 * progress, through the gateway (`getSession().createMessage`): the prompt is rendered, then sent
 * as `sampling/createMessage`
 * with its system prompt, its model as a model hint and its `maxTokens`, and the resources
 * handed to the call as further user messages. The answer is the model's text. Pass it to
 * `createToolkit({ delegate })` for a toolkit you serve with {@link serveHttp} or
 * {@link serveStdio}.
 *
 * @throws {ToolError} `no_delegate` when no gateway session's tool call is in progress (e.g. a
 * prompt called outside the gateway) or that session's client does not support sampling;
 * `execution` when the client refuses or fails; `cancelled` when the call is cancelled.
 */
export function createSamplingDelegate(options: SamplingDelegateOptions = {}): ToolkitDelegate {
  const delegate: ToolkitDelegate = {
    async call(prompt, input, { resources, signal }) {
      const id = `${prompt.namespace}:${prompt.name}`;
      const session = getSession();
      const rendered = await prompt.render(input, signal === undefined ? {} : { signal });
      const model = prompt.prompt?.model;
      const params: CreateMessageRequestParams = {
        messages: [
          ...(rendered.messages.length > 0
            ? rendered.messages.map(toSamplingMessage)
            : [textMessage(rendered.text)]),
          ...resources.map(resourceMessage),
        ],
        maxTokens: prompt.prompt?.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
        ...(rendered.systemPrompt === undefined ? {} : { systemPrompt: rendered.systemPrompt }),
        ...(model === undefined ? {} : { modelPreferences: { hints: [{ name: model }] } }),
      };
      let result;
      try {
        result = await session.createMessage(params, signal === undefined ? {} : { signal });
      } catch (error) {
        throw forPrompt(id, error);
      }
      const blocks: unknown[] = Array.isArray(result.content) ? result.content : [result.content];
      return blocks
        .map((block) => {
          const { type, text } = block as { type?: unknown; text?: unknown };
          return type === 'text' && typeof text === 'string' ? text : '';
        })
        .join('');
    },
  };
  if (options.onEvent !== undefined) delegate.onEvent = options.onEvent;
  return delegate;
}

/** A failure of the session's `createMessage` as the prompt's, naming it. */
function forPrompt(id: string, error: unknown): ToolError {
  const code = ToolError.isInstance(error) ? error.code : 'execution';
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(code, `prompt "${id}" could not run on the client's model: ${message}`, {
    cause: error,
    toolId: id,
  });
}

function textMessage(text: string): SamplingMessage {
  return { role: 'user', content: { type: 'text', text } };
}

/** A prompt message as a sampling message: resources, which sampling cannot carry, as text. */
function toSamplingMessage(message: PromptMessage): SamplingMessage {
  const { role, content } = message;
  switch (content.type) {
    case 'text':
    case 'image':
    case 'audio':
      return { role, content };
    case 'resource': {
      const { resource } = content;
      const body = 'text' in resource ? resource.text : `(binary, ${resource.blob.length} base64)`;
      return { role, content: { type: 'text', text: `Resource ${resource.uri}:\n${body}` } };
    }
    case 'resource_link':
      return { role, content: { type: 'text', text: `Resource ${content.uri}` } };
  }
}

function resourceMessage(resource: Resource): SamplingMessage {
  const contents = toResourceContents(resource);
  const body = 'text' in contents ? contents.text : `(binary ${contents.mimeType ?? 'data'})`;
  return textMessage(`Resource ${contents.uri}:\n${body}`);
}
