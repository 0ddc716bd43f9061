import { isPlainObject, ToolError } from '@toolplane/toolmodel';
import type { RunResult } from '@toolplane/toolrun';

type McpResult = NonNullable<RunResult['mcpResult']>;
/** One MCP content block: text, image, audio, resource link or embedded resource. */
export type ContentBlock = McpResult['content'][number];

/**
 * A tool's answer, normalised the same way for every adapter: the MCP result's content blocks as
 * they came (a local tool's value rendered as text), its structured content when that is an
 * object, and `isError` with toolplane's `code` when the call failed.
 */
export interface AdapterToolResult {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  /** Toolplane's error code when the call failed before or instead of the tool answering. */
  readonly code?: string;
}

/** @deprecated Renamed {@link AdapterToolResult} (toolkit has a `ToolResult` of its own); this alias goes in the next minor. */
export type ToolResult = AdapterToolResult;

/**
 * A successful run as an {@link AdapterToolResult}: an MCP tool's result as it came, a local tool's
 * value as text (a string as it is, anything else as JSON, an object also as structured content).
 */
export function fromRun(run: Pick<RunResult, 'structured' | 'mcpResult'>): AdapterToolResult {
  const mcp = run.mcpResult;
  if (mcp !== undefined) {
    return {
      content: mcp.content,
      ...(isPlainObject(mcp.structuredContent) ? { structuredContent: mcp.structuredContent } : {}),
      ...(mcp.isError === true ? { isError: true } : {}),
    };
  }
  const value = run.structured;
  if (value === undefined) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const text = JSON.stringify(value);
  return isPlainObject(value)
    ? { content: [{ type: 'text', text }], structuredContent: value }
    : { content: [{ type: 'text', text }] };
}

/** A JSON object as an {@link AdapterToolResult}: its text for the model, the object as structured content. */
export function jsonResult(value: Record<string, unknown>): AdapterToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

// Deep enough for any wrapping toolplane does; a cycle in a foreign cause chain ends here.
const MAX_CAUSE_DEPTH = 8;

/**
 * The upstream's own error result (`isError: true` with content) that the runner carries in a
 * failure's cause chain, if there is one.
 */
export function upstreamErrorOf(
  error: ToolError,
): (Partial<McpResult> & Pick<McpResult, 'content'>) | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && cause !== undefined; depth++) {
    const result = cause as Partial<McpResult>;
    if (result.isError === true && Array.isArray(result.content)) {
      return result as Partial<McpResult> & Pick<McpResult, 'content'>;
    }
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return undefined;
}

/**
 * A failed call as an {@link AdapterToolResult} the model reads: an upstream's own error result (see
 * {@link upstreamErrorOf}) as it was sent, any other failure as `code: message`; either way with
 * `isError` and the failure's `code`.
 */
export function fromError(error: ToolError): AdapterToolResult {
  const upstream = upstreamErrorOf(error);
  if (upstream !== undefined) {
    return {
      content: upstream.content,
      ...(isPlainObject(upstream.structuredContent)
        ? { structuredContent: upstream.structuredContent }
        : {}),
      isError: true,
      code: error.code,
    };
  }
  return {
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    isError: true,
    code: error.code,
  };
}

/** A thrown value as a {@link ToolError}: a ToolError as it is, anything else wrapped as `internal`. */
export function asToolError(error: unknown, toolId: string): ToolError {
  return ToolError.isInstance(error)
    ? error
    : new ToolError('internal', error instanceof Error ? error.message : String(error), {
        cause: error,
        toolId,
      });
}
