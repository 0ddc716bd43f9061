import { checkSchema, checkToolName } from '@toolplane/adapter-kit';
import { isPlainObject } from '@toolplane/toolmodel';

// What the Messages API documents for the requests this adapter shapes: custom tools (name rule,
// an object input_schema), and every tool_use answered by a tool_result at the start of the next
// user message, with text and base64 image blocks and a boolean is_error.

type Json = Record<string, unknown>;
const MEDIA = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function checkResultContent(content: unknown, at: string): string[] {
  if (content === undefined || typeof content === 'string') return [];
  if (!Array.isArray(content)) return [`${at}: content is neither text nor blocks`];
  const problems: string[] = [];
  content.forEach((block: unknown, i) => {
    const here = `${at}/content/${String(i)}`;
    if (isPlainObject(block) && block.type === 'text' && typeof block.text === 'string') {
      if (block.text === '') problems.push(`${here}: empty text block`);
      return;
    }
    if (isPlainObject(block) && block.type === 'image' && isPlainObject(block.source)) {
      const source = block.source;
      if (source.type !== 'base64' || typeof source.data !== 'string') {
        problems.push(`${here}: image source is not base64 data`);
      }
      if (!MEDIA.has(String(source.media_type))) {
        problems.push(`${here}: media_type ${String(source.media_type)} is not supported`);
      }
      return;
    }
    problems.push(`${here}: neither a text nor an image block`);
  });
  return problems;
}

/** Problems in a Messages API request body. */
export function checkMessagesRequest(body: Json): string[] {
  const problems: string[] = [];
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool: unknown, i) => {
      const at = `tools/${String(i)}`;
      if (!isPlainObject(tool)) {
        problems.push(`${at}: not an object`);
        return;
      }
      if (typeof tool.name !== 'string' || !checkToolName(tool.name, 'anthropic')) {
        problems.push(`${at}: name ${JSON.stringify(tool.name)} is not ^[a-zA-Z0-9_-]{1,64}$`);
      }
      if (tool.description !== undefined && typeof tool.description !== 'string') {
        problems.push(`${at}: description is not text`);
      }
      for (const problem of checkSchema(tool.input_schema, 'anthropic')) {
        problems.push(`${at} input_schema${problem}`);
      }
    });
  }
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  let open: string[] = [];
  messages.forEach((message, i) => {
    const at = `messages/${String(i)}`;
    if (!isPlainObject(message)) return;
    const content = Array.isArray(message.content) ? (message.content as unknown[]) : [];
    if (message.role === 'user') {
      const results = content.filter(
        (block) => isPlainObject(block) && block.type === 'tool_result',
      );
      const leading = content.findIndex(
        (block) => !isPlainObject(block) || block.type !== 'tool_result',
      );
      if (leading !== -1 && leading < results.length) {
        problems.push(`${at}: tool_result blocks must come first`);
      }
      const answered = new Set<string>();
      results.forEach((block, j) => {
        const result = block as Json;
        const id = String(result.tool_use_id);
        if (!open.includes(id) || answered.has(id)) {
          problems.push(`${at}: tool_result ${id} answers no open tool_use`);
        }
        answered.add(id);
        if (result.is_error !== undefined && typeof result.is_error !== 'boolean') {
          problems.push(`${at}: is_error is not a boolean`);
        }
        problems.push(...checkResultContent(result.content, `${at}/tool_result/${String(j)}`));
      });
      for (const id of open)
        if (!answered.has(id)) problems.push(`${at}: tool_use ${id} was not answered`);
      open = [];
      return;
    }
    if (open.length > 0) problems.push(`${at}: tool_use ${open.join(', ')} was not answered`);
    open = content
      .filter((block): block is Json => isPlainObject(block) && block.type === 'tool_use')
      .map((block) => String(block.id));
  });
  return problems;
}

/** The checker for whichever endpoint a request went to. */
export function checkAnthropicRequest(path: string, body: Json): string[] {
  return path.endsWith('/messages') ? checkMessagesRequest(body) : [`unexpected path ${path}`];
}
