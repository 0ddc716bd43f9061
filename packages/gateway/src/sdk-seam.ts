import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { RunResult } from '@toolplane/toolkit';
import type { toMcpJson } from '@toolplane/toolmodel';

// toolmodel and toolrun type MCP objects with SDK v2 while this server is still on SDK v1. The
// wire JSON is the same; v2 widened two types for the 2026-07-28 revision, handled here until the
// gateway moves to `@modelcontextprotocol/server`.

/** A `tools/call` result as toolrun (SDK v2) types it. */
export type RunCallToolResult = NonNullable<RunResult['mcpResult']>;

/**
 * `result` as a 2025-era `tools/call` result. Since 2026-07-28 `structuredContent` may be any
 * JSON value; before it, only an object. Any other value is left out, and told as a text block
 * when the result has no content to carry it.
 */
export function toV1CallToolResult(result: RunCallToolResult): CallToolResult {
  const { structuredContent, ...rest } = result;
  if (
    structuredContent === undefined ||
    (typeof structuredContent === 'object' &&
      structuredContent !== null &&
      !Array.isArray(structuredContent))
  ) {
    return result as CallToolResult;
  }
  return rest.content.length > 0
    ? rest
    : { ...rest, content: [{ type: 'text', text: JSON.stringify(structuredContent) }] };
}

/**
 * `tool` (toolmodel's wire form, typed by SDK v2) as the v1 `Tool` of a `tools/list` result. v2
 * types `inputSchema.properties` values as any JSON value where v1 says `object`; the JSON sent
 * is the tool as toolmodel holds it, as before.
 */
export function toV1Tool(tool: ReturnType<typeof toMcpJson>): McpTool {
  return tool as McpTool;
}
