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
 * Whether `value` is a JSON-RPC request ID that can be answered: a string, or a safe integer. A
 * JSON integer past 2^53 - 1 is read as a nearby one (123456789012345678901234567890 as
 * 1.2345678901234568e+29), so its answer could not carry the ID that was sent: it is not one.
 */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * The ID to answer a message that is not valid with: its own when it has a usable one, else
 * `null`, as JSON-RPC says for a request whose ID cannot be told.
 */
export function answerIdOf(value: unknown): RequestId | null {
  return isPlainObject(value) && isRequestId(value.id) ? value.id : null;
}
