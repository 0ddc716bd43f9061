import {
  DEFAULT_MAX_OUTPUT_CHARS,
  fromError as resultOfError,
  fromRun as resultOfRun,
  leftOutNote,
  maxOutputCharsOf,
  mediaOf,
  OutputBudget,
  textOf,
  type ContentBlock,
  type AdapterToolResult,
} from '@toolplane/adapter-kit';
import { optionKeys, refuseUnknownOptions, type ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';
import type { Tool } from 'ai';

export { DEFAULT_MAX_OUTPUT_CHARS };
export type { ContentBlock };

/** What `toModelOutput` answers the AI SDK with (its `ToolResultOutput`). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** A progress report of a running tool: a preliminary result in the AI SDK's terms. */
export interface ProgressOutput {
  readonly type: 'progress';
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * A tool's answer as the AI SDK keeps it (in steps, messages and UI streams): the MCP result's
 * content and structured content, `isError` when the tool failed (with toolplane's error `code`).
 */
export interface ResultOutput extends AdapterToolResult {
  readonly type: 'result';
}

/** What a toolplane tool's `execute` yields: progress reports, then one result. */
export type AiSdkToolOutput = ProgressOutput | ResultOutput;

/** A successful run as a result: an MCP tool's result as it came, a local tool's value rendered. */
export function fromRun(run: RunResult): ResultOutput {
  return { type: 'result', ...resultOfRun(run) };
}

/**
 * A failed call as a result the model reads: an upstream's own error result (which the runner
 * carries as the failure's cause) as it was sent, any other failure as `code: message`.
 */
export function fromError(error: ToolError): ResultOutput {
  return { type: 'result', ...resultOfError(error) };
}

/** Options of {@link toModelOutput}. */
export interface ModelOutputOptions {
  /**
   * At most this many characters of a result reach the model (text, JSON and base64 media
   * together; default {@link DEFAULT_MAX_OUTPUT_CHARS}): text past it is cut with a note saying
   * how much was left out, and media that does not fit is replaced by a note.
   */
  readonly maxOutputChars?: number;
}

/** Every key of {@link ModelOutputOptions}. */
export const MODEL_OUTPUT_OPTION_KEYS = optionKeys<ModelOutputOptions>({ maxOutputChars: true });

/**
 * The parts this adapter makes: text, and `media`, which every supported `ai` major reads (ai 5
 * knows no other media part; ai 6 and later turn it into `image-data` or `file-data`).
 */
type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'media'; readonly data: string; readonly mediaType: string };

/**
 * What the model is told of a toolplane tool's output: text as text, structured content as
 * JSON, images and audio as media parts (with any text beside them), a failure as an error
 * output the model can read and act on; all within `maxOutputChars`.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not take, or a `maxOutputChars`
 * that is not a whole number of 1 or more.
 */
export function toModelOutput(
  output: AiSdkToolOutput,
  options: ModelOutputOptions = {},
): ToolResultOutput {
  refuseUnknownOptions(options, MODEL_OUTPUT_OPTION_KEYS, 'toModelOutput');
  return modelOutputOf(output, maxOutputCharsOf(options.maxOutputChars));
}

/**
 * {@link toModelOutput} with `maxOutputChars` checked already: what the adapter's own tools
 * answer with, their options having been checked when they were made.
 */
export function modelOutputOf(output: AiSdkToolOutput, maxOutputChars: number): ToolResultOutput {
  const budget = new OutputBudget(maxOutputChars);
  if (output.type === 'progress') {
    // Only when a call ended without a result; preliminary results never reach the model.
    return { type: 'error-text', value: 'the tool ended without a result' };
  }
  if (output.isError === true) return { type: 'error-text', value: budget.failure(output) };
  const hasMedia = output.content.some((block) => block.type === 'image' || block.type === 'audio');
  if (!hasMedia && output.structuredContent !== undefined) {
    const json = JSON.stringify(output.structuredContent);
    if (json.length <= budget.left)
      return { type: 'json', value: output.structuredContent as never };
    return { type: 'text', value: budget.text(json) };
  }
  if (!hasMedia && output.content.every((block) => block.type === 'text')) {
    return { type: 'text', value: budget.text(textOf(output.content)) };
  }
  const parts = budget.parts(
    output.content,
    (block) => toPart(block, budget),
    (text): ContentPart => ({ type: 'text', text }),
  );
  return { type: 'content', value: parts };
}

/**
 * A block as a part: text cut to the budget, media as `media` when it fits, a note otherwise
 * (`undefined` when the note does not fit either, see `OutputBudget.parts`).
 */
function toPart(block: ContentBlock, budget: OutputBudget): ContentPart | undefined {
  const media = mediaOf(block);
  if (media === undefined) return { type: 'text', text: budget.blockText(block) ?? '' };
  if (budget.take(media)) return { type: 'media', data: media.data, mediaType: media.mimeType };
  const note = budget.note(leftOutNote(media, 'over the output limit'));
  return note === undefined ? undefined : { type: 'text', text: note };
}

/**
 * The output a `toModelOutput` callback is about: ai 5 passes the output itself, ai 6 and later
 * `{ toolCallId, input, output }` (an output of this adapter never has a `toolCallId`).
 */
export function outputOf(argument: unknown): AiSdkToolOutput {
  return typeof argument === 'object' &&
    argument !== null &&
    'toolCallId' in argument &&
    'output' in argument
    ? (argument.output as AiSdkToolOutput)
    : (argument as AiSdkToolOutput);
}
