import { ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';
import type { Tool } from 'ai';

type McpResult = NonNullable<RunResult['mcpResult']>;
/** What `toModelOutput` answers the AI SDK with (its `ToolResultOutput`). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;
/** One MCP content block: text, image, audio, resource link or embedded resource. */
export type ContentBlock = McpResult['content'][number];

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
export interface ResultOutput {
  readonly type: 'result';
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  /** Toolplane's error code when the call failed before or instead of the tool answering. */
  readonly code?: string;
}

/** What a toolplane tool's `execute` yields: progress reports, then one result. */
export type AiSdkToolOutput = ProgressOutput | ResultOutput;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A successful run as a result: an MCP tool's result as it came, a local tool's value rendered. */
export function fromRun(run: RunResult): ResultOutput {
  const mcp = run.mcpResult;
  if (mcp !== undefined) {
    return {
      type: 'result',
      content: mcp.content,
      ...(isRecord(mcp.structuredContent) ? { structuredContent: mcp.structuredContent } : {}),
      ...(mcp.isError === true ? { isError: true } : {}),
    };
  }
  const value = run.structured;
  if (value === undefined) return { type: 'result', content: [] };
  if (typeof value === 'string')
    return { type: 'result', content: [{ type: 'text', text: value }] };
  const text = JSON.stringify(value);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? {
        type: 'result',
        content: [{ type: 'text', text }],
        structuredContent: value as Record<string, unknown>,
      }
    : { type: 'result', content: [{ type: 'text', text }] };
}

/**
 * A failed call as a result the model reads: an upstream's own error result (which the runner
 * carries as the failure's cause) as it was sent, any other failure as `code: message`.
 */
export function fromError(error: ToolError): ResultOutput {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 8 && cause !== undefined; depth++) {
    const result = cause as Partial<McpResult>;
    if (result.isError === true && Array.isArray(result.content)) {
      return {
        type: 'result',
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
    type: 'result',
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    isError: true,
    code: error.code,
  };
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

/** About 50,000 tokens: a bound well inside every current model's context. */
export const DEFAULT_MAX_OUTPUT_CHARS = 200_000;

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
 */
export function toModelOutput(
  output: AiSdkToolOutput,
  options: ModelOutputOptions = {},
): ToolResultOutput {
  const budget = new Budget(options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  if (output.type === 'progress') {
    // Only when a call ended without a result; preliminary results never reach the model.
    return { type: 'error-text', value: 'the tool ended without a result' };
  }
  if (output.isError === true) {
    const text = textOf(output.content);
    return {
      type: 'error-text',
      value: budget.text(
        text.length > 0 ? text : JSON.stringify(output.structuredContent ?? 'the tool failed'),
      ),
    };
  }
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
  const parts: ContentPart[] = [];
  for (const block of output.content) parts.push(budget.part(block));
  return { type: 'content', value: parts };
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
    return `${text.slice(0, kept)}\n[toolplane: ${text.length - kept} of ${text.length} characters left out]`;
  }

  part(block: ContentBlock): ContentPart {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: this.text(block.text) };
      case 'image':
      case 'audio':
        if (block.data.length > this.left) {
          return {
            type: 'text',
            text: `[toolplane: ${block.type} (${block.mimeType}, ${block.data.length} base64 characters) left out: over the output limit]`,
          };
        }
        this.left -= block.data.length;
        return { type: 'media', data: block.data, mediaType: block.mimeType };
      case 'resource_link':
        return {
          type: 'text',
          text: this.text(
            `resource ${block.uri}${block.name === '' ? '' : ` (${block.name})`}${block.description === undefined ? '' : `: ${block.description}`}`,
          ),
        };
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) {
          return { type: 'text', text: this.text(`resource ${resource.uri}:\n${resource.text}`) };
        }
        const mediaType = resource.mimeType ?? 'application/octet-stream';
        if (resource.blob.length > this.left) {
          return {
            type: 'text',
            text: `[toolplane: resource ${resource.uri} (${mediaType}, ${resource.blob.length} base64 characters) left out: over the output limit]`,
          };
        }
        this.left -= resource.blob.length;
        return { type: 'media', data: resource.blob, mediaType };
      }
    }
  }
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
