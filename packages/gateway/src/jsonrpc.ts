import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { isPlainObject } from '@toolplane/toolmodel';
import { isRequestId } from '@toolplane/toolmodel/wire';

/**
 * Whether `value` is a JSON-RPC 2.0 message as MCP uses them: a request or notification (a
 * string `method`, object `params` if any), or a response to one (a result object, or an error
 * with an integer `code` and a string `message`). The method's own params are checked later, by
 * the handler that serves it.
 */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return false;
  if ('id' in value && !isRequestId(value.id)) return false;
  if (typeof value.method === 'string')
    return value.params === undefined || isPlainObject(value.params);
  if (!('id' in value)) return false;
  if ('result' in value) return isPlainObject(value.result) && !('error' in value);
  const { error } = value;
  return (
    isPlainObject(error) &&
    typeof error.code === 'number' &&
    Number.isInteger(error.code) &&
    typeof error.message === 'string'
  );
}

/**
 * The request a `notifications/cancelled` names, if `message` is one: a request nothing will
 * answer, which a transport stops waiting for. A message of that method with an `id` is a request
 * (the SDK answers it "method not found"), not a cancellation: it cancels nothing.
 */
export function cancelledRequest(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  if ('id' in message) return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The `_meta` key of the instance ID in errors (see `ServeHttpOptions.instanceId`). */
export const INSTANCE_META_KEY = 'io.toolplane/instance';

/**
 * `message` with `meta` merged into its error's `data._meta` when it is an error answer (as is
 * otherwise). An error whose `data` is not an object (a string, a list) is left as it is: there is
 * nowhere to put `_meta` without changing what the data says.
 */
export function withErrorMeta<M>(message: M, meta: Readonly<Record<string, unknown>>): M {
  if (!isPlainObject(message) || !isPlainObject(message.error)) return message;
  const { data } = message.error;
  if (data !== undefined && !isPlainObject(data)) return message;
  const own = isPlainObject(data?._meta) ? data._meta : {};
  return {
    ...message,
    error: { ...message.error, data: { ...data, _meta: { ...own, ...meta } } },
  };
}
