import type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import { mcpToolResult, type McpToolResult } from '@toolplane/toolrun';
import { toResourceContents, validateResource, type Resource } from './resources/resources.js';
import { specIssue } from './spec-check.js';

/** A builtin tool's rich answer, built with {@link toolResult}; see `mcpToolResult` in toolrun. */
export type ToolResult = McpToolResult;

/** Options of {@link toolResult}. */
export interface ToolResultOptions {
  /** The structured answer; validated against the tool's output schema when it has one. */
  readonly structured?: Record<string, unknown>;
  /** Marks the answer as a failure the model should see (the call then fails with `execution`). */
  readonly isError?: boolean;
  /** The result's `_meta`. */
  readonly meta?: Record<string, unknown>;
}

const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A builtin tool's answer as MCP content: return it from `run` (see `defineTool`) to send
 * text, images, audio, resource links and embedded resources, with optional structured content,
 * or to report a failure with `isError`. The toolkit's `callTool` returns it as the run's
 * `mcpResult`, and a served toolkit sends it to the client as it is.
 *
 * @throws {ToolError} `invalid_argument` when a block or `structured` is not valid MCP.
 *
 * @example
 * run: async ({ path }) => toolResult([textContent(`Chart of ${path}`), imageContent(png, 'image/png')])
 */
export function toolResult(
  content: ContentBlock | readonly ContentBlock[],
  options: ToolResultOptions = {},
): ToolResult {
  const blocks: ContentBlock[] = Array.isArray(content)
    ? [...(content as readonly ContentBlock[])]
    : [content as ContentBlock];
  const result: CallToolResult = { content: blocks };
  if (options.structured !== undefined) result.structuredContent = options.structured;
  if (options.isError !== undefined) result.isError = options.isError;
  if (options.meta !== undefined) result._meta = options.meta;
  const issue = specIssue('CallToolResult', result);
  if (issue !== undefined) {
    throw new ToolError(
      'invalid_argument',
      `not a valid MCP tool result${issue === '' ? '' : `: ${issue}`}`,
    );
  }
  return mcpToolResult(result);
}

/** A text block. @throws {ToolError} `invalid_argument` when `text` is not a string. */
export function textContent(text: string): TextContent {
  if (typeof text !== 'string') {
    throw new ToolError('invalid_argument', `text content must be a string, got ${typeof text}`);
  }
  return { type: 'text', text };
}

/**
 * An image block from bytes or a base64 string.
 *
 * @throws {ToolError} `invalid_argument` for data that is not bytes or base64, or a MIME type
 * that is not `type/subtype`.
 */
export function imageContent(data: Uint8Array | string, mimeType: string): ImageContent {
  return { type: 'image', data: base64Of('image', data), mimeType: checkMime('image', mimeType) };
}

/**
 * An audio block from bytes or a base64 string.
 *
 * @throws {ToolError} `invalid_argument` as {@link imageContent}.
 */
export function audioContent(data: Uint8Array | string, mimeType: string): AudioContent {
  return { type: 'audio', data: base64Of('audio', data), mimeType: checkMime('audio', mimeType) };
}

/**
 * A link to a resource the client may read later: a toolkit {@link Resource} (its contents are
 * not sent) or the link's fields.
 *
 * @throws {ToolError} `invalid_argument` when the URI or name is missing.
 */
export function resourceLink(target: Resource | Omit<ResourceLink, 'type'>): ResourceLink {
  const { uri, name, title, description, mimeType } = target;
  if (typeof uri !== 'string' || !URL.canParse(uri) || typeof name !== 'string' || name === '') {
    throw new ToolError('invalid_argument', 'a resource link needs an absolute uri and a name');
  }
  const link: ResourceLink = { type: 'resource_link', uri, name };
  if (title !== undefined) link.title = title;
  if (description !== undefined) link.description = description;
  if (mimeType !== undefined) link.mimeType = mimeType;
  return link;
}

/**
 * A toolkit {@link Resource} embedded with its contents (text or blob).
 *
 * @throws {ToolError} `invalid_resource` when `resource` is not a valid resource.
 */
export function embeddedResource(resource: Resource): EmbeddedResource {
  return { type: 'resource', resource: toResourceContents(validateResource(resource)) };
}

function base64Of(kind: string, data: Uint8Array | string): string {
  if (data instanceof Uint8Array) return Buffer.from(data).toString('base64');
  if (typeof data === 'string' && data.length % 4 === 0 && BASE64.test(data)) return data;
  throw new ToolError(
    'invalid_argument',
    `${kind} data must be bytes (a Uint8Array) or a base64 string`,
  );
}

function checkMime(kind: string, mimeType: string): string {
  if (typeof mimeType === 'string' && MIME_TYPE.test(mimeType)) return mimeType;
  throw new ToolError(
    'invalid_argument',
    `${kind} MIME type must look like type/subtype (e.g. ${kind === 'image' ? 'image/png' : 'audio/wav'}), got ${JSON.stringify(mimeType)}`,
  );
}
