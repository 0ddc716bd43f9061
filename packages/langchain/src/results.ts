import {
  DEFAULT_MAX_OUTPUT_CHARS,
  fromError as resultOfError,
  fromRun as resultOfRun,
  leftOutNote,
  maxOutputCharsOf,
  mediaOf,
  OutputBudget,
  type AdapterToolResult,
  type ContentBlock,
} from '@toolplane/adapter-kit';
import { optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import { shownValue } from '@toolplane/toolmodel/text';
import type { RunResult } from '@toolplane/toolrun';

export { DEFAULT_MAX_OUTPUT_CHARS };
export type { ContentBlock };

/**
 * What a toolplane tool hands LangChain as its `ToolMessage`'s `artifact`: the whole result, as
 * the tool sent it (every content block, images and audio as base64, resource links, embedded
 * resources), its structured content, and whether it failed. The model never sees the artifact;
 * the application does.
 */
export interface ToolplaneArtifact extends AdapterToolResult {
  /** The canonical toolplane ID of the tool that ran (`namespace:name`). */
  readonly toolId: string;
}

// Artifacts whose one text block is their structured content as JSON already (a local tool's
// object value), so the model's text is not serialised a second time.
const textIsJson = new WeakSet<ToolplaneArtifact>();

/** A successful run as an artifact: an MCP tool's result as it came, a local tool's value rendered. */
export function toLangChainResult(toolId: string, run: RunResult): ToolplaneArtifact {
  const result = resultOfRun(run);
  const artifact: ToolplaneArtifact = { toolId, ...result };
  if (run.mcpResult === undefined && result.structuredContent !== undefined) {
    textIsJson.add(artifact);
  }
  return artifact;
}

/** @deprecated Renamed {@link toLangChainResult} (adapter-kit has a `fromRun` of its own); this alias goes in the next minor. */
export const fromRun = toLangChainResult;

/**
 * A failed call as an artifact the model is told about: an upstream's own error result (which
 * the runner carries in the failure's cause chain) as it was sent, any other failure as
 * `code: message`.
 */
export function fromError(toolId: string, error: ToolError): ToolplaneArtifact {
  return { toolId, ...resultOfError(error) };
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

/** Every key of {@link MessageContentOptions}. */
export const MESSAGE_CONTENT_OPTION_KEYS = optionKeys<MessageContentOptions>({
  maxOutputChars: true,
  media: true,
});

/** {@link MessageContentOptions} checked, with their defaults. */
export interface MessageContent {
  readonly maxOutputChars: number;
  readonly media: 'artifact' | 'content';
}

/**
 * The values of {@link MessageContentOptions} checked (their keys are the caller's to check),
 * with their defaults: what `toMessageContent`, a `ToolplaneTool` and `toLangChainTools` take.
 *
 * @param where The function or class given them, for the message.
 * @throws {ToolError} `invalid_argument` for a `media` other than `'artifact'` and `'content'`, or
 * a `maxOutputChars` that is not a whole number of 1 or more.
 */
export function messageContentOf(options: MessageContentOptions, where: string): MessageContent {
  const { media } = options as { media?: unknown };
  if (media !== undefined && media !== 'artifact' && media !== 'content') {
    throw new ToolError(
      'invalid_argument',
      `${where}: media must be 'artifact' or 'content', got ${shownValue(media)}`,
    );
  }
  return { maxOutputChars: maxOutputCharsOf(options.maxOutputChars), media: media ?? 'artifact' };
}

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
 *
 * @throws {ToolError} `invalid_argument` for an option it does not take, or one it cannot use
 * (see {@link messageContentOf}).
 */
export function toMessageContent(
  artifact: ToolplaneArtifact,
  options: MessageContentOptions = {},
): string | MessageBlock[] {
  refuseUnknownOptions(options, MESSAGE_CONTENT_OPTION_KEYS, 'toMessageContent');
  return contentOf(artifact, messageContentOf(options, 'toMessageContent'));
}

/** {@link toMessageContent} with its options checked already (see {@link messageContentOf}). */
export function contentOf(
  artifact: ToolplaneArtifact,
  options: MessageContent,
): string | MessageBlock[] {
  const budget = new OutputBudget(options.maxOutputChars);
  const { content, structuredContent } = artifact;
  if (artifact.isError === true) return budget.failure(artifact);
  const hasMedia = content.some((block) => mediaOf(block) !== undefined);
  if (!hasMedia && structuredContent !== undefined) {
    const only = content.length === 1 ? content[0] : undefined;
    return budget.text(
      only?.type === 'text' && textIsJson.has(artifact)
        ? only.text
        : JSON.stringify(structuredContent),
    );
  }
  if (!hasMedia || options.media !== 'content') {
    return budget
      .parts(
        content,
        (block) => noteOf(block, budget),
        (text) => text,
      )
      .filter((text) => text.length > 0)
      .join('\n');
  }
  return budget.parts(
    content,
    (block) => blockOf(block, budget),
    (text): MessageBlock => ({ type: 'text', text }),
  );
}

/**
 * A block as text: media as a note saying it is in the artifact (`undefined` when the note does
 * not fit, see `OutputBudget.parts`).
 */
function noteOf(block: ContentBlock, budget: OutputBudget): string | undefined {
  const media = mediaOf(block);
  return media === undefined
    ? (budget.blockText(block) ?? '')
    : budget.note(`[toolplane: ${media.what} (${media.mimeType}) in the artifact]`);
}

/**
 * A block as a standard content block: media as data when it fits, as a note otherwise
 * (`undefined` when the note does not fit either).
 */
function blockOf(block: ContentBlock, budget: OutputBudget): MessageBlock | undefined {
  const media = mediaOf(block);
  if (media === undefined) return { type: 'text', text: budget.blockText(block) ?? '' };
  if (budget.take(media)) return { type: media.kind, mimeType: media.mimeType, data: media.data };
  const note = budget.note(leftOutNote(media, 'over the output limit'));
  return note === undefined ? undefined : { type: 'text', text: note };
}
