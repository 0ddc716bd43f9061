import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * The mark of a {@link McpToolResult}. Registered with `Symbol.for`, so a result built by one
 * copy of this package is recognised by another.
 */
export const MCP_TOOL_RESULT: unique symbol = Symbol.for('@toolplane/McpToolResult');

/**
 * A complete MCP tool result returned by a local or provider handler: the runner passes it on as
 * an MCP backend's result (kept as `mcpResult`, normalised into `structured`, `isError: true`
 * failing the call) instead of taking it as a plain value. Build one with {@link mcpToolResult}.
 */
export type McpToolResult = CallToolResult & { readonly [MCP_TOOL_RESULT]: true };

/**
 * Marks `result` as a complete MCP tool result, so a handler can answer with content blocks
 * (images, audio, resources), `structuredContent` and `isError`. The returned value is a copy;
 * the mark is not enumerable, so it never reaches the wire.
 */
export function mcpToolResult(result: CallToolResult): McpToolResult {
  const marked = { ...result };
  Object.defineProperty(marked, MCP_TOOL_RESULT, { value: true, enumerable: false });
  return marked as McpToolResult;
}

/** True when `value` was built by {@link mcpToolResult} (by any copy of this package). */
export function isMcpToolResult(value: unknown): value is McpToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Partial<Record<typeof MCP_TOOL_RESULT, unknown>>)[MCP_TOOL_RESULT] === true
  );
}
