import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';

/** Where a toolkit writes what it has to say; `console` fits. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** A {@link Logger} that drops everything. */
export const silentLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/** The caller of the tool or prompt call in progress, as {@link getSession} reports it. */
export interface Session {
  /** The MCP session ID, when the call came through a served toolkit. */
  readonly id: string | undefined;
  /** The connected client's name and version. */
  readonly clientInfo: Implementation | undefined;
  /** What the connected client can do (sampling, elicitation, roots, …). */
  readonly capabilities: ClientCapabilities | undefined;
  /** The request's `_meta`, e.g. a W3C `traceparent`. */
  readonly meta: Readonly<Record<string, unknown>>;
  readonly logger: Logger;
  /** Reports progress to the caller; a no-op when nobody listens. */
  readonly progress: (progress: number, total?: number, message?: string) => void;
}

const storage = new AsyncLocalStorage<Session>();

const noSession: Session = Object.freeze({
  id: undefined,
  clientInfo: undefined,
  capabilities: undefined,
  meta: Object.freeze({}),
  logger: silentLogger,
  progress: () => undefined,
});

/**
 * The session of the call in progress: inside a builtin tool or a prompt delegate, who called
 * and how to report progress to them. Outside a call it is an inert session whose `progress`
 * does nothing, so code can call it unconditionally.
 */
export function getSession(): Session {
  return storage.getStore() ?? noSession;
}

/**
 * The current session's progress reporter, or `undefined` when nobody listens, so callers can
 * skip asking a backend for progress at all.
 *
 * @internal
 */
export function progressReporter(): Session['progress'] | undefined {
  const session = storage.getStore();
  return session === undefined || session.progress === noSession.progress
    ? undefined
    : session.progress;
}

/**
 * Runs `fn` with `session` as {@link getSession}'s answer; fields not given are inherited from the
 * current session. For servers that call into a toolkit on behalf of a client.
 */
export function runInSession<T>(session: Partial<Session>, fn: () => T): T {
  return storage.run({ ...getSession(), ...session }, fn);
}
