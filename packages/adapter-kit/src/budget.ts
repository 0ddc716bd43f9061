import { ToolError } from '@toolplane/toolmodel';
import type { ContentBlock, AdapterToolResult } from './results.js';

/** About 50,000 tokens: a bound well inside every current model's context. */
export const DEFAULT_MAX_OUTPUT_CHARS = 200_000;

/**
 * `maxOutputChars` as given, or the default when absent.
 *
 * @throws {ToolError} `invalid_argument` unless it is a whole number of 1 or more (or
 * `Infinity`): `NaN` (`Number(process.env.X)` of a variable that is not set) or 0 would
 * otherwise leave every result out of what the model reads.
 */
export function maxOutputCharsOf(value: unknown): number {
  return charBoundOf(value, 'maxOutputChars', DEFAULT_MAX_OUTPUT_CHARS);
}

/**
 * A bound of characters named `name` (see {@link maxOutputCharsOf}), or `fallback` when absent.
 *
 * @throws {ToolError} `invalid_argument` unless it is a whole number of 1 or more, or `Infinity`.
 */
export function charBoundOf(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(Number.isInteger(value) || value === Infinity) || value < 1) {
    throw new ToolError(
      'invalid_argument',
      `${name} must be a whole number of characters, 1 or more, not ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}

/** Base64 media in a content block: an image, audio, or an embedded resource's blob. */
export interface Media {
  /** `file` for an embedded resource's blob. */
  readonly kind: 'image' | 'audio' | 'file';
  readonly data: string;
  readonly mimeType: string;
  /** How a note names it: `image`, `audio`, or `resource <uri>`. */
  readonly what: string;
}

/** The media a block carries, or `undefined` for a block of text (text, links, text resources). */
export function mediaOf(block: ContentBlock): Media | undefined {
  if (block.type === 'image' || block.type === 'audio') {
    return { kind: block.type, data: block.data, mimeType: block.mimeType, what: block.type };
  }
  if (block.type === 'resource' && 'blob' in block.resource) {
    const { resource } = block;
    return {
      kind: 'file',
      data: resource.blob,
      mimeType: resource.mimeType ?? 'application/octet-stream',
      what: `resource ${resource.uri}`,
    };
  }
  return undefined;
}

/** The note that stands in for media the model does not get, saying what it was and why. */
export function leftOutNote(media: Media, why: string): string {
  return `[toolplane: ${media.what} (${media.mimeType}, ${String(media.data.length)} base64 characters) left out: ${why}]`;
}

/**
 * A block that is text (text, a resource link, an embedded text resource) as the model reads
 * it, whole; `undefined` for media (see {@link mediaOf}).
 */
export function blockString(block: ContentBlock): string | undefined {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `resource ${block.uri}${block.name === '' ? '' : ` (${block.name})`}${block.description === undefined ? '' : `: ${block.description}`}`;
    case 'resource':
      return 'text' in block.resource
        ? `resource ${block.resource.uri}:\n${block.resource.text}`
        : undefined;
    default:
      return undefined;
  }
}

/** The text blocks of a result's content, joined by newlines. */
export function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((block): block is Extract<ContentBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * What a tool's output may still spend of `maxOutputChars` on its way to the model (text, JSON
 * and base64 media together). One per result: text past the budget is cut with a note saying
 * how much was left out, media that does not fit is left out with a note ({@link leftOutNote}).
 */
export class OutputBudget {
  /** Characters still to spend. */
  left: number;
  /** Characters spent so far (what was kept; the notes are not counted). */
  spent = 0;

  constructor(maxOutputChars: number = DEFAULT_MAX_OUTPUT_CHARS) {
    this.left = maxOutputChars;
  }

  /**
   * `text`, cut to what is left with a note saying how much was left out. `length` is the whole
   * text's when `text` is only its start (a text kept no longer than any budget could spend).
   */
  text(text: string, length: number = text.length): string {
    if (length <= this.left) {
      this.left -= length;
      this.spent += length;
      return text;
    }
    const kept = Math.max(0, this.left);
    this.left = 0;
    this.spent += kept;
    return `${text.slice(0, kept)}\n[toolplane: ${String(length - kept)} of ${String(length)} characters left out]`;
  }

  /**
   * `note` (one standing in for media, say) when it fits what is left, spent like text;
   * `undefined` when it does not, for {@link OutputBudget.parts} to count with the blocks left.
   */
  note(note: string): string | undefined {
    if (note.length > this.left) return undefined;
    this.left -= note.length;
    this.spent += note.length;
    return note;
  }

  /**
   * Each block of `blocks` as `part` makes it while the budget lasts (the first one always, so a
   * budget of 0 still says how much a text was), then one note, made a part by `text`, for all
   * the blocks left: those past the budget, and any whose part came back `undefined` (a note that
   * did not fit) with those after it. One note each would be unbounded: 50,000 blocks of two
   * characters would reach the model as 2 million characters of notes. Each part after the first
   * spends a character too, so 50,000 empty blocks do not pass as 50,000 newlines.
   */
  parts<B, T>(
    blocks: readonly B[],
    part: (block: B) => T | undefined,
    text: (note: string) => T,
  ): T[] {
    const parts: T[] = [];
    let rest = 0;
    for (const block of blocks) {
      if (rest === 0 && (this.left > 0 || parts.length === 0)) {
        // Each part after the first costs a character, for what joins it to the one before (a
        // newline, the next entry of a list): empty blocks would pass any budget otherwise.
        if (parts.length > 0) {
          this.left--;
          this.spent++;
        }
        const made = part(block);
        if (made !== undefined) {
          parts.push(made);
          continue;
        }
      }
      rest++;
    }
    if (rest > 0) {
      parts.push(
        text(
          `[toolplane: ${String(rest)} more block${rest === 1 ? '' : 's'} left out: over the output limit]`,
        ),
      );
    }
    return parts;
  }

  /** Spends `media`'s characters when it fits, and says whether it did. */
  take(media: Media): boolean {
    if (media.data.length > this.left) return false;
    this.left -= media.data.length;
    this.spent += media.data.length;
    return true;
  }

  /**
   * A block that is text (text, a resource link, an embedded text resource) as the model reads
   * it ({@link blockString}), cut to the budget; `undefined` for media (see {@link mediaOf}).
   */
  blockText(block: ContentBlock): string | undefined {
    const text = blockString(block);
    return text === undefined ? undefined : this.text(text);
  }

  /**
   * What the model reads of a failed result: its text, else its structured content as JSON,
   * else that the tool failed; cut to the budget.
   */
  failure(result: AdapterToolResult): string {
    const text = textOf(result.content);
    return this.text(
      text.length > 0 ? text : JSON.stringify(result.structuredContent ?? 'the tool failed'),
    );
  }
}
