import { isPlainObject } from '../guards.js';

/** A JSON-RPC request ID: a string or an integer. */
export type RequestId = string | number;

/**
 * The JSON-RPC error code for a request answered because its connection, stream or session ended
 * before its answer came (SDK v1's `ConnectionClosed`; v2 keeps that code for its own local
 * errors only, so the transports that answer such requests on the wire name it here).
 */
export const CONNECTION_CLOSED = -32000;

/**
 * Whether `value` is a JSON-RPC request ID: a string, or a number that is an integer. An integer
 * past 2^53 counts: JSON allows it, and its answer carries the same number back.
 */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * The ID to answer a message that is not valid with: its own when it has a usable one, else
 * `null`, as JSON-RPC says for a request whose ID cannot be told.
 */
export function answerIdOf(value: unknown): RequestId | null {
  return isPlainObject(value) && isRequestId(value.id) ? value.id : null;
}
