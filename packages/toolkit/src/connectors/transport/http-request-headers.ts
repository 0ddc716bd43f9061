import type { JSONRPCMessage, RequestId, TransportSendOptions } from '@modelcontextprotocol/client';
import { isMessage } from './http-agent.js';

/** Headers the SDK's transport owns; a per-request header may not set them. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
]);

/** Which field of a request `Mcp-Name` mirrors, by method (2026-07-28). */
const NAME_FIELDS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The protocol version a request claims in its `_meta` envelope (2026-07-28 requests do). */
function envelopeVersion(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const version = meta?.[PROTOCOL_VERSION_KEY];
  return typeof version === 'string' ? version : undefined;
}

export function isModernRequest(message: JSONRPCMessage): boolean {
  const version = envelopeVersion(message);
  return version !== undefined && version >= '2026-';
}

/**
 * A request's own headers: the ones the SDK asks for (`Mcp-Param-*`), and on a 2026-07-28
 * request the routing headers taken from its body (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`), as the SDK's transport sends them.
 */
export function perRequestHeaders(
  message: JSONRPCMessage,
  options: TransportSendOptions | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options?.headers ?? {})) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  const version = envelopeVersion(message);
  if (version === undefined || !('method' in message)) return headers;
  headers['mcp-protocol-version'] = version;
  headers['mcp-method'] = message.method;
  const field = NAME_FIELDS[message.method];
  const value = field === undefined ? undefined : message.params?.[field];
  if (typeof value === 'string') headers['mcp-name'] = headerValue(value);
  return headers;
}

/** A header value as SEP-2243 carries it: as is when it is plain visible ASCII, else base64. */
function headerValue(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    !(value.startsWith('=?base64?') && value.endsWith('?=')) &&
    /^[\t\x20-\x7e]*$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The JSON-RPC error answer to `requestId` in a 400's body, if that is what it holds. */
export function parseErrorAnswer(text: string, requestId: RequestId): JSONRPCMessage | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isMessage(parsed) && 'error' in parsed && (parsed as { id?: unknown }).id === requestId) {
      return parsed;
    }
  } catch {
    // Not JSON: an HTTP error like any other.
  }
  return undefined;
}
