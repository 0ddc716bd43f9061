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

/** Whether `value` is an object of JSON whose members zod copies as they are (none it reorders). */
function isPlainParams(value: unknown): value is Record<string, unknown> {
  return (
    isPlainObject(value) && !Object.hasOwn(value, '_meta') && !Object.hasOwn(value, '__proto__')
  );
}

/** Whether every member of `value` is one of `members`. */
function hasOnly(value: Record<string, unknown>, members: readonly string[]): boolean {
  for (const key in value) if (!members.includes(key)) return false;
  return true;
}

const RESPONSE = ['jsonrpc', 'id', 'result'];
const ERROR_RESPONSE = ['jsonrpc', 'id', 'error'];
const REQUEST = ['jsonrpc', 'id', 'method', 'params'];

/**
 * `value` (a parsed line) as the SDK's `parseJSONRPCMessage` reads it. Told here, each built as
 * zod builds its output (members in its schema's order): a result response whose `result` has
 * no `_meta` (whose members zod checks and reorders) and no own `__proto__` (which zod drops); an
 * error response with an integer `code` and a string `message` (other members of `error`
 * dropped, as zod drops them); a request or a notification whose `params` (if any) has no
 * `_meta` or own `__proto__`. Any other message goes through zod.
 *
 * @throws what `parseJSONRPCMessage` throws for a value that is not a JSON-RPC message.
 */
export function readMessage(value: unknown): JSONRPCMessage {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return parseJSONRPCMessage(value);
  const { id, method, params, result, error } = value;
  if (Object.hasOwn(value, 'method')) {
    if (
      typeof method === 'string' &&
      hasOnly(value, REQUEST) &&
      (params === undefined || isPlainParams(params))
    ) {
      const withParams = params === undefined ? {} : { params };
      if (id === undefined) return { jsonrpc: '2.0', method, ...withParams };
      if (isId(id)) return { jsonrpc: '2.0', id, method, ...withParams };
    }
  } else if (Object.hasOwn(value, 'result')) {
    if (isId(id) && hasOnly(value, RESPONSE) && isPlainParams(result)) {
      return { jsonrpc: '2.0', id, result };
    }
  } else if (
    isPlainObject(error) &&
    (id === undefined || isId(id)) &&
    hasOnly(value, ERROR_RESPONSE) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string'
  ) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    const told = Object.hasOwn(error, 'data') ? { code, message, data } : { code, message };
    return id === undefined ? { jsonrpc: '2.0', error: told } : { jsonrpc: '2.0', id, error: told };
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
