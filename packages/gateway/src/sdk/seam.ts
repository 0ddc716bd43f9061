import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RunResult } from '@toolplane/toolkit';

// What is left of the seam between the toolkit's objects and the wire once everything is on SDK
// v2: the one shape a 2025-era client cannot take as the toolkit holds it.

/** A `tools/call` result as toolrun types it. */
export type RunCallToolResult = NonNullable<RunResult['mcpResult']>;

/**
 * `result` as a 2025-era `tools/call` result. Since 2026-07-28 `structuredContent` may be any
 * JSON value; before it, only an object. Any other value is left out, and told as a text block
 * when the result has no content to carry it.
 */
export function toLegacyCallToolResult(result: RunCallToolResult): CallToolResult {
  const { structuredContent, ...rest } = result;
  if (
    structuredContent === undefined ||
    (typeof structuredContent === 'object' &&
      structuredContent !== null &&
      !Array.isArray(structuredContent))
  ) {
    return result;
  }
  return rest.content.length > 0
    ? rest
    : { ...rest, content: [{ type: 'text', text: JSON.stringify(structuredContent) }] };
}
