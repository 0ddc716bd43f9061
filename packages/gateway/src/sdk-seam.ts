import type {
  CallToolResult,
  ClientCapabilities,
  Tool as McpTool,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RunResult, Session, UpstreamRequest } from '@toolplane/toolkit';
import type { toMcpJson } from '@toolplane/toolmodel';

// toolmodel, toolrun and the toolkit (its connectors and `Session`) type MCP objects with SDK v2
// while this server is still on SDK v1. The wire JSON is the same; v2 widened a few types for the
// 2026-07-28 revision, handled here until the gateway moves to `@modelcontextprotocol/server`.
// Errors cross the same seam in call-results.ts (protocolError).

/** What the toolkit's `Session.createMessage` takes (SDK v2's sampling parameters). */
type CreateMessageParams = Parameters<Session['createMessage']>[0];

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

/**
 * A server request the toolkit hands over (typed by SDK v2: sampling, elicitation) as the v1
 * `ServerRequest` this server sends. The JSON is the same; v2 widens `structuredContent` of a
 * sampling message's tool results to any JSON value, which a 2025 client is sent as it came.
 */
export function toV1ServerRequest(
  request: UpstreamRequest | { method: 'sampling/createMessage'; params: CreateMessageParams },
): ServerRequest {
  return request as ServerRequest;
}

/**
 * A client's capabilities (SDK v1 `ClientCapabilities`) as the toolkit's `Session` types them
 * (SDK v2). v2 types `experimental` and `sampling` members as JSON objects where v1 says `object`;
 * what a client sent is JSON, so the value is the same.
 */
export function toSessionCapabilities(
  capabilities: ClientCapabilities | undefined,
): Session['capabilities'] {
  return capabilities as Session['capabilities'];
}
