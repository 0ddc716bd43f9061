import { ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';

type McpResult = NonNullable<RunResult['mcpResult']>;
/** One MCP content block: text, image, audio, resource link or embedded resource. */
export type ContentBlock = McpResult['content'][number];

/**
 * What a toolplane tool hands LangChain as its `ToolMessage`'s `artifact`: the whole result, as
 * the tool sent it (every content block, images and audio as base64, resource links, embedded
 * resources), its structured content, and whether it failed. The model never sees the artifact;
 * the application does.
 */
export interface ToolplaneArtifact {
  /** The canonical toolplane ID of the tool that ran (`namespace:name`). */
  readonly toolId: string;
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  /** Toolplane's error code when the call failed before or instead of the tool answering. */
  readonly code?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A successful run as an artifact: an MCP tool's result as it came, a local tool's value rendered. */
export function fromRun(toolId: string, run: RunResult): ToolplaneArtifact {
  const mcp = run.mcpResult;
  if (mcp !== undefined) {
    return {
      toolId,
      content: mcp.content,
      ...(isRecord(mcp.structuredContent) ? { structuredContent: mcp.structuredContent } : {}),
      ...(mcp.isError === true ? { isError: true } : {}),
    };
  }
  const value = run.structured;
  if (value === undefined) return { toolId, content: [] };
  if (typeof value === 'string') return { toolId, content: [{ type: 'text', text: value }] };
  const text = JSON.stringify(value);
  return isRecord(value)
    ? { toolId, content: [{ type: 'text', text }], structuredContent: value }
    : { toolId, content: [{ type: 'text', text }] };
}

/**
 * A failed call as an artifact the model is told about: an upstream's own error result (which
 * the runner carries in the failure's cause chain) as it was sent, any other failure as
 * `code: message`.
 */
export function fromError(toolId: string, error: ToolError): ToolplaneArtifact {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 8 && cause !== undefined; depth++) {
    const result = cause as Partial<McpResult>;
    if (result.isError === true && Array.isArray(result.content)) {
      return {
        toolId,
        content: result.content,
        ...(isRecord(result.structuredContent)
          ? { structuredContent: result.structuredContent }
          : {}),
        isError: true,
        code: error.code,
      };
    }
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return {
    toolId,
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    isError: true,
    code: error.code,
  };
}

/** A thrown value as a {@link ToolError}, foreign errors wrapped. */
export function asToolError(error: unknown, toolId: string): ToolError {
  return ToolError.isInstance(error)
    ? error
    : new ToolError('internal', error instanceof Error ? error.message : String(error), {
        cause: error,
        toolId,
      });
}

/** Options of {@link toMessageContent}. */
export interface MessageContentOptions {
  /**
   * At most this many characters of a result reach the model (default
   * {@link DEFAULT_MAX_OUTPUT_CHARS}): text past it is cut with a note saying how much was left
   * out, and media that does not fit is replaced by a note. The artifact keeps the whole result.
   */
  readonly maxOutputChars?: number;
  /**
   * Where images and audio go: only into the artifact, with a note in the text so the model
   * knows they exist (`'artifact'`, the default), or also to the model as LangChain standard
   * content blocks (`'content'`), for multimodal models that read media in tool messages.
   */
  readonly media?: 'artifact' | 'content';
}

/** About 50,000 tokens: a bound well inside every current model's context. */
export const DEFAULT_MAX_OUTPUT_CHARS = 200_000;

/** A LangChain standard content block of a tool message. */
export type MessageBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image' | 'audio' | 'file';
      readonly mimeType: string;
      readonly data: string;
    };

/**
 * What the model reads of a result, as a `ToolMessage`'s content: a string (text blocks and
 * notes, or the structured content as JSON when there is no media), or, with
 * `media: 'content'` and media in the result, standard content blocks with the images and audio.
 * Everything within `maxOutputChars`.
 */
export function toMessageContent(
  artifact: ToolplaneArtifact,
  options: MessageContentOptions = {},
): string | MessageBlock[] {
  const budget = new Budget(options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  const { content, structuredContent } = artifact;
  if (artifact.isError === true) {
    const text = textOf(content);
    return budget.text(
      text.length > 0 ? text : JSON.stringify(structuredContent ?? 'the tool failed'),
    );
  }
  const hasMedia = content.some(
    (block) =>
      block.type === 'image' ||
      block.type === 'audio' ||
      (block.type === 'resource' && 'blob' in block.resource),
  );
  if (!hasMedia && structuredContent !== undefined) {
    return budget.text(JSON.stringify(structuredContent));
  }
  if (!hasMedia || options.media !== 'content') {
    return content
      .map((block) => budget.note(block))
      .filter((text) => text.length > 0)
      .join('\n');
  }
  return content.map((block) => budget.block(block));
}

function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((block): block is Extract<ContentBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** The characters a result may still spend. */
class Budget {
  constructor(public left: number) {}

  text(text: string): string {
    if (text.length <= this.left) {
      this.left -= text.length;
      return text;
    }
    const kept = Math.max(0, this.left);
    this.left = 0;
    return `${text.slice(0, kept)}\n[toolplane: ${String(text.length - kept)} of ${String(text.length)} characters left out]`;
  }

  /** A block as text: media as a note saying where it is. */
  note(block: ContentBlock): string {
    switch (block.type) {
      case 'text':
        return this.text(block.text);
      case 'image':
      case 'audio':
        return `[toolplane: ${block.type} (${block.mimeType}) in the artifact]`;
      case 'resource_link':
        return this.text(
          `resource ${block.uri}${block.name === '' ? '' : ` (${block.name})`}${block.description === undefined ? '' : `: ${block.description}`}`,
        );
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) return this.text(`resource ${resource.uri}:\n${resource.text}`);
        return `[toolplane: resource ${resource.uri} (${resource.mimeType ?? 'application/octet-stream'}) in the artifact]`;
      }
    }
  }

  /** A block as a standard content block: media as data when it fits, as a note otherwise. */
  block(block: ContentBlock): MessageBlock {
    let media: { type: 'image' | 'audio' | 'file'; mimeType: string; data: string; what: string };
    if (block.type === 'image' || block.type === 'audio') {
      media = { type: block.type, mimeType: block.mimeType, data: block.data, what: block.type };
    } else if (block.type === 'resource' && 'blob' in block.resource) {
      media = {
        type: 'file',
        mimeType: block.resource.mimeType ?? 'application/octet-stream',
        data: block.resource.blob,
        what: `resource ${block.resource.uri}`,
      };
    } else {
      return { type: 'text', text: this.note(block) };
    }
    if (media.data.length > this.left) {
      return {
        type: 'text',
        text: `[toolplane: ${media.what} (${media.mimeType}, ${String(media.data.length)} base64 characters) left out: over the output limit]`,
      };
    }
    this.left -= media.data.length;
    return { type: media.type, mimeType: media.mimeType, data: media.data };
  }
}
