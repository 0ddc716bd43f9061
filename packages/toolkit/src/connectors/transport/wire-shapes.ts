import {
  isCallToolResult,
  parseJSONRPCMessage,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';
import { isPlainObject } from '@toolplane/toolmodel';

// Why: the SDK checks every message read, and every tools/call result, against its zod schemas,
// which cost a gateway's call ~8 µs of CPU. The common shapes are told here by hand, only where
// the answer is certain to be zod's own (the same verdict, and a value equal to zod's output,
// which copies an object and drops nothing but what these checks send to zod); anything else is
// left to zod, so what is accepted, refused and passed on stays exactly the SDK's.

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * `value` (a parsed line) as the SDK's `parseJSONRPCMessage` reads it. A result response with
 * nothing but `jsonrpc`, `id` and a `result` object with no `_meta` (whose members zod checks
 * and reorders) and no own `__proto__` (which zod drops) is taken as it is; any other message
 * goes through zod.
 *
 * @throws what `parseJSONRPCMessage` throws for a value that is not a JSON-RPC message.
 */
export function readMessage(value: unknown): JSONRPCMessage {
  if (isPlainObject(value) && value.jsonrpc === '2.0') {
    let members = 0;
    for (const key in value) {
      if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return parseJSONRPCMessage(value);
      members++;
    }
    const { id, result } = value;
    if (
      members === 3 &&
      isId(id) &&
      isPlainObject(result) &&
      !Object.hasOwn(result, '_meta') &&
      !Object.hasOwn(result, '__proto__')
    ) {
      return { jsonrpc: '2.0', id, result };
    }
  }
  return parseJSONRPCMessage(value);
}

/**
 * Whether `value` is a `CallToolResult`, as the SDK's `isCallToolResult` says: told here for a
 * result of text blocks (with no annotations or `_meta` of their own), an optional boolean
 * `isError` and no `_meta` or own `__proto__`; asked of zod for anything else.
 */
export function isToolResult(value: unknown): value is CallToolResult {
  if (!isPlainObject(value) || Object.hasOwn(value, '_meta') || Object.hasOwn(value, '__proto__'))
    return isCallToolResult(value);
  const { content, isError } = value;
  if (!Array.isArray(content) || (isError !== undefined && typeof isError !== 'boolean'))
    return isCallToolResult(value);
  for (const block of content as unknown[]) {
    if (
      !isPlainObject(block) ||
      block.type !== 'text' ||
      typeof block.text !== 'string' ||
      Object.hasOwn(block, 'annotations') ||
      Object.hasOwn(block, '_meta')
    ) {
      return isCallToolResult(value);
    }
  }
  return true;
}
