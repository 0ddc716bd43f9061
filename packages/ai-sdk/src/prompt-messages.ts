import type { Resource, RenderedPrompt } from '@toolplane/toolkit';
import type { AssistantContent, ModelMessage, UserContent } from 'ai';

type PromptMessage = RenderedPrompt['messages'][number];
type Part = Exclude<UserContent, string>[number] | Exclude<AssistantContent, string>[number];

const BINARY = 'application/octet-stream';

/** One MCP content block of a prompt message as an AI SDK message part. */
function partOf(content: PromptMessage['content'], role: PromptMessage['role']): Part {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text };
    case 'image':
      // Assistant messages take no image parts; a file part carries the same bytes.
      return role === 'user'
        ? { type: 'image', image: content.data, mediaType: content.mimeType }
        : { type: 'file', data: content.data, mediaType: content.mimeType };
    case 'audio':
      return { type: 'file', data: content.data, mediaType: content.mimeType };
    case 'resource': {
      const { resource } = content;
      return 'text' in resource
        ? { type: 'text', text: `Resource ${resource.uri}:\n${resource.text}` }
        : { type: 'file', data: resource.blob, mediaType: resource.mimeType ?? BINARY };
    }
    case 'resource_link':
      return {
        type: 'text',
        text: `Resource link ${content.uri} (${content.name}${content.description === undefined ? '' : `: ${content.description}`})`,
      };
    default:
      // A block type a newer MCP revision adds: told to the model as JSON rather than dropped.
      return { type: 'text', text: JSON.stringify(content) };
  }
}

/**
 * A rendered prompt's MCP messages as AI SDK model messages, then the resources handed to the
 * call (text as text, binary contents as files) as one more user message.
 */
export function toModelMessages(
  messages: readonly PromptMessage[],
  resources: readonly Resource[],
): ModelMessage[] {
  const out: ModelMessage[] = messages.map((message) => {
    const part = partOf(message.content, message.role);
    return message.role === 'user'
      ? { role: 'user', content: [part] as UserContent }
      : { role: 'assistant', content: [part] as AssistantContent };
  });
  if (resources.length > 0) {
    const parts = resources.map((resource): Part =>
      resource.text !== undefined
        ? { type: 'text', text: `Resource ${resource.uri}:\n${resource.text}` }
        : {
            type: 'file',
            data: resource.blob,
            mediaType: resource.mimeType ?? BINARY,
            filename: resource.name,
          },
    );
    out.push({ role: 'user', content: parts as UserContent });
  }
  return out;
}
