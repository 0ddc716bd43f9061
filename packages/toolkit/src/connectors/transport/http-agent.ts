// The HTTP side of the Streamable HTTP client transport: the process's one connection pool, what
// it tells of connections the server ends, and what the transport reads off its answers.
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { Agent, Dispatcher } from 'undici';
import { commonJs } from '@toolplane/toolmodel';
import { MAX_REDIRECTS } from './node-fetch.js';

/** Who hears, per origin, of the server closing or resetting a connection of the pool. */
const closedByServer = new Map<string, Set<(error: Error) => void>>();
// Codes of a connection the other side ended: not undici's own idle timeout (UND_ERR_INFO) nor
// an abort of ours.
const SERVER_CLOSE_CODES: ReadonlySet<unknown> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

let shared: Promise<Agent> | undefined;

/**
 * The one keep-alive agent for every connector in the process (undici pools connections per
 * origin), made at the first HTTP request: undici is some 400 modules, which a process with only
 * stdio servers (`toolplane tools list`, say) never loads. No HTTP-level time limits: undici's
 * default of 300 s without a byte would break a quiet session stream, or fail a long tool call
 * whose stream carries nothing meanwhile, every five minutes; how long a request may take is the
 * MCP request timeout's business.
 */
export function httpAgent(): Promise<Agent> {
  shared ??= import('undici').then((undici) => {
    const agent = new (commonJs(undici).Agent)({ headersTimeout: 0, bodyTimeout: 0 });
    agent.on('disconnect', (origin, _targets, error) => {
      if (!SERVER_CLOSE_CODES.has((error as { code?: unknown } | undefined)?.code)) return;
      for (const listener of closedByServer.get(new URL(origin).origin) ?? []) listener(error);
    });
    return agent;
  });
  return shared;
}

/**
 * Calls `listener` whenever the server at `origin` closes or resets a connection of the pool
 * (a server that exits does, for every connection kept alive to it); returns how to stop.
 */
export function watchServerCloses(origin: string, listener: (error: Error) => void): () => void {
  let listeners = closedByServer.get(origin);
  if (listeners === undefined) closedByServer.set(origin, (listeners = new Set()));
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && closedByServer.get(origin) === listeners) {
      closedByServer.delete(origin);
    }
  };
}

/** An answer from {@link httpAgent}'s agent. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Dispatcher.ResponseData['body'];
}

/** A header's (first) value. */
export function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A content type without its parameters, lower-cased. */
export function mediaType(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first?.split(';', 1)[0]?.trim().toLowerCase();
}

/** Whether `status` is a redirect that names where to go. */
export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** Why a redirect was not followed, when the answer is one. */
export function redirectNote(answer: Answer, url: URL): string | undefined {
  const location = header(answer.headers, 'location');
  if (!isRedirect(answer.statusCode) || location === undefined) return undefined;
  const next = new URL(location, url);
  return next.origin === url.origin
    ? `more than ${MAX_REDIRECTS} redirects, the last to ${next.href}`
    : `redirected to ${next.href}, not followed: it leaves ${url.origin}`;
}

/** A JSON-RPC 2.0 message by shape; the SDK's protocol checks each kind's members. */
export function isMessage(value: unknown): value is JSONRPCMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}

/** `: note`, or nothing without a note. */
export function suffix(note: string | undefined): string {
  return note === undefined ? '' : `: ${note}`;
}

/** `error` if it is an `Error`, else an `Error` saying what it was. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
