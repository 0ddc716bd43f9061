import { checkSchema, checkToolName } from '@toolplane/adapter-kit';
import { isPlainObject } from '@toolplane/toolmodel';

// What OpenAI's API documents for the requests this adapter shapes: function tools (name rule,
// schema rules for strict and non-strict), and tool results that answer every call by its ID.

type Json = Record<string, unknown>;

function checkTool(name: unknown, parameters: unknown, strict: unknown, at: string): string[] {
  const problems: string[] = [];
  if (typeof name !== 'string' || !checkToolName(name, 'openai')) {
    problems.push(`${at}: name ${JSON.stringify(name)} is not ^[a-zA-Z0-9_-]{1,64}$`);
  }
  if (strict !== undefined && strict !== null && typeof strict !== 'boolean') {
    problems.push(`${at}: strict is not a boolean`);
  }
  for (const problem of checkSchema(parameters, strict === true ? 'openai-strict' : 'openai')) {
    problems.push(`${at} parameters${problem}`);
  }
  return problems;
}

function checkImageUrl(url: unknown, at: string): string[] {
  return typeof url === 'string' && /^(data:image\/[\w.+-]+;base64,|https?:)/.test(url)
    ? []
    : [`${at}: image URL is neither a data URL nor http(s)`];
}

/** Problems in a Chat Completions request body. */
export function checkChatRequest(body: Json): string[] {
  const problems: string[] = [];
  const tools = body.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) problems.push('tools is not an array');
    else {
      tools.forEach((tool: unknown, i) => {
        const fn = isPlainObject(tool) ? tool.function : undefined;
        if (!isPlainObject(tool) || tool.type !== 'function' || !isPlainObject(fn)) {
          problems.push(`tools/${i}: not a function tool`);
          return;
        }
        problems.push(...checkTool(fn.name, fn.parameters, fn.strict, `tools/${i}`));
      });
    }
  }
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  let open: Set<string> | undefined;
  messages.forEach((message, i) => {
    if (!isPlainObject(message)) {
      problems.push(`messages/${i}: not an object`);
      return;
    }
    if (message.role === 'tool') {
      const id = message.tool_call_id;
      if (open === undefined || typeof id !== 'string' || !open.delete(id)) {
        problems.push(`messages/${i}: tool_call_id ${JSON.stringify(id)} answers no open call`);
      }
      const content = message.content;
      const textOnly =
        typeof content === 'string' ||
        (Array.isArray(content) &&
          content.every((part: unknown) => isPlainObject(part) && part.type === 'text'));
      if (!textOnly) problems.push(`messages/${i}: tool content must be text`);
      return;
    }
    if (open !== undefined && open.size > 0) {
      problems.push(`messages/${i}: calls ${[...open].join(', ')} were not answered`);
    }
    open = undefined;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      open = new Set(
        message.tool_calls.map((call: unknown) => (isPlainObject(call) ? String(call.id) : '')),
      );
    }
    if (message.role === 'user' && Array.isArray(message.content)) {
      message.content.forEach((part: unknown, j) => {
        if (isPlainObject(part) && part.type === 'image_url') {
          const url = isPlainObject(part.image_url) ? part.image_url.url : undefined;
          problems.push(...checkImageUrl(url, `messages/${i}/content/${j}`));
        }
      });
    }
  });
  if (open !== undefined && open.size > 0) {
    problems.push(`calls ${[...open].join(', ')} were not answered`);
  }
  return problems;
}

/** Problems in a Responses API request body. */
export function checkResponsesRequest(body: Json): string[] {
  const problems: string[] = [];
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool: unknown, i) => {
      if (!isPlainObject(tool) || tool.type !== 'function') {
        problems.push(`tools/${i}: not a function tool`);
        return;
      }
      problems.push(...checkTool(tool.name, tool.parameters, tool.strict, `tools/${i}`));
    });
  }
  const input = Array.isArray(body.input) ? (body.input as unknown[]) : [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  input.forEach((item, i) => {
    if (!isPlainObject(item)) return;
    if (item.type === 'function_call') calls.add(String(item.call_id));
    if (item.type !== 'function_call_output') return;
    const id = String(item.call_id);
    if (!calls.has(id) || answered.has(id)) {
      problems.push(`input/${i}: call_id ${id} answers no open function_call`);
    }
    answered.add(id);
    const output = item.output;
    if (typeof output === 'string') return;
    if (!Array.isArray(output)) {
      problems.push(`input/${i}: output is neither text nor a list`);
      return;
    }
    output.forEach((part: unknown, j) => {
      if (isPlainObject(part) && part.type === 'input_image') {
        problems.push(...checkImageUrl(part.image_url, `input/${i}/output/${j}`));
      } else if (
        !isPlainObject(part) ||
        part.type !== 'input_text' ||
        typeof part.text !== 'string'
      ) {
        problems.push(`input/${i}/output/${j}: neither input_text nor input_image`);
      }
    });
  });
  for (const id of calls) {
    if (!answered.has(id)) problems.push(`function_call ${id} was not answered`);
  }
  return problems;
}

/** The checker for whichever endpoint a request went to. */
export function checkOpenAIRequest(path: string, body: Json): string[] {
  if (path.endsWith('/chat/completions')) return checkChatRequest(body);
  if (path.endsWith('/responses')) return checkResponsesRequest(body);
  return [`unexpected path ${path}`];
}
