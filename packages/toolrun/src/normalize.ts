import type { CallToolResult } from '@modelcontextprotocol/client';
import { inexactInteger } from '@toolplane/toolmodel';

type ContentBlock = CallToolResult['content'][number];

// JSON documents start with one of these (after whitespace); checking first spares a throw
// for every plain-text result.
const JSON_START = /^\s*(?:[{["\d-]|true\b|false\b|null\b)/;

function textValue(text: string): unknown {
  // A text with an integer JSON.parse reads as another (a 19-digit ID) stays the text sent: the
  // nearby number would name another record.
  if (!JSON_START.test(text) || inexactInteger(text) !== undefined) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function blockValue(block: ContentBlock): unknown {
  return block.type === 'text' ? textValue(block.text) : block;
}

/**
 * The structured value of an MCP tool result: `structuredContent` when present; otherwise a
 * single text block parsed as JSON when it is JSON whose integers all read exactly (the string
 * otherwise: an ID past 2^53 - 1 is not handed on as a nearby number); a single non-text
 * block as it is; several blocks as an array of those values; no content as `undefined`.
 * Images, audio and resources are kept as content blocks.
 */
export function normalizeMcpResult(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content;
  if (content.length === 0) return undefined;
  if (content.length === 1) return blockValue(content[0] as ContentBlock);
  return content.map(blockValue);
}

/** The text blocks of an MCP result joined by newlines, for error messages. */
export function mcpResultText(result: CallToolResult): string {
  let text = '';
  for (const block of result.content) {
    if (block.type === 'text') text = text.length === 0 ? block.text : `${text}\n${block.text}`;
  }
  return text;
}
