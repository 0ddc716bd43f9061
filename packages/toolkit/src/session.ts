import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
} from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import { CALLER_META_KEY } from './connectors/connector.js';
import type { Resource } from './resources/resources.js';

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

/**
 * Who called, as an OAuth access token said it and the gateway verified it (MCP authorization).
 * Never holds the token itself.
 */
export interface SessionAuth {
  /** The token's subject (`sub`): a user, or the client itself for client credentials. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to. */
  readonly clientId: string | undefined;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** The authorization server that issued the token. */
  readonly issuer: string | undefined;
  /** When the token expires, in epoch seconds. */
  readonly expiresAt: number | undefined;
}

/** The caller of the tool or prompt call in progress, as {@link getSession} reports it. */
export interface Session {
  /** The MCP session ID, when the call came through a served toolkit. */
  readonly id: string | undefined;
  /** The connected client's name and version. */
  readonly clientInfo: Implementation | undefined;
  /** What the connected client can do (sampling, elicitation, roots, …). */
  readonly capabilities: ClientCapabilities | undefined;
  /**
   * Who called, when the gateway verified an OAuth access token (`serveHttp`'s `auth`); absent
   * otherwise.
   */
  readonly auth?: SessionAuth | undefined;
  /**
   * Where the call came from over HTTP, as the gateway counts its sources: the client's address
   * (an IPv6 one's /64) or, behind a trusted proxy, the client it forwards; absent otherwise
   * (stdio, or a toolkit called directly). Many sessions of one client share it, so per-caller
   * shares key on it when there is no OAuth subject.
   */
  readonly source?: string | undefined;
  /** The request's `_meta`, e.g. a W3C `traceparent`. */
  readonly meta: Readonly<Record<string, unknown>>;
  /**
   * Where the code in the call writes what it has to say: in a served call, the caller's log (as
   * {@link Session.log}, at `debug`, `info`, `warning` and `error`, so the client's
   * `logging/setLevel` holds); otherwise silent unless given.
   */
  readonly logger: Logger;
  /**
   * The resources handed to the call in progress (`CallOptions.resources`, kept results among
   * them), for tools and prompt delegates alike; empty when none were.
   */
  readonly resources: readonly Resource[];
  /** Reports progress to the caller; a no-op when nobody listens. */
  readonly progress: (progress: number, total?: number, message?: string) => void;
  /**
   * Sends a log message (`notifications/message`) to the caller alone, unless its
   * `logging/setLevel` filters `level` out; resolves once sent. A no-op when there is no caller.
   */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
  readonly log: (level: LoggingLevel, data: unknown, logger?: string) => Promise<void>;
  /**
   * Asks the caller's user for input (`elicitation/create`), as part of the call in progress;
   * cancelled with the call.
   *
   * @throws {ToolError} `no_delegate` when there is no caller or its client does not support
   * elicitation (or this mode of it); `validation` when an accepted answer breaks
   * `requestedSchema` (as the gateway checks); `cancelled`; `execution` when the client fails.
   */
  readonly elicit: (
    params: ElicitRequestParams,
    options?: SessionRequestOptions,
  ) => Promise<ElicitResult>;
  /**
   * Asks the caller's model for a message (`sampling/createMessage`), as part of the call in
   * progress; cancelled with the call.
   *
   * @throws {ToolError} `no_delegate` when there is no caller or its client does not support
   * sampling (or sampling with tools, when `params.tools` is set); `cancelled`; `execution` when
   * the client fails.
   */
  readonly createMessage: (
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
    params: CreateMessageRequestParams,
    options?: SessionRequestOptions,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
  ) => Promise<CreateMessageResult | CreateMessageResultWithTools>;
}

/** Options of a {@link Session}'s requests to the caller. */
export interface SessionRequestOptions {
  /** Cancels the request, besides the call's own cancellation. */
  readonly signal?: AbortSignal;
  /**
   * The canonical ID of the call this question is about, when it is asked before that call
   * reaches its backend (the approval middleware's question): nothing has run yet, so a gateway
   * may answer it by running the call again from the start, on another instance too.
   */
  readonly beforeDispatch?: string;
  /**
   * When the question lapses, in ms since the epoch: an answer given after it is no answer (a
   * gateway that replays the call asks again instead of using it).
   */
  readonly answerBy?: number;
}

const storage = new AsyncLocalStorage<Session>();

const noSession: Session = Object.freeze({
  id: undefined,
  clientInfo: undefined,
  capabilities: undefined,
  meta: Object.freeze({}),
  resources: Object.freeze([]),
  logger: silentLogger,
  progress: () => undefined,
  log: () => Promise.resolve(),
  elicit: () => Promise.reject(noCaller('elicitation/create')),
  createMessage: () => Promise.reject(noCaller('sampling/createMessage')),
});

function noCaller(method: string): ToolError {
  return new ToolError(
    'no_delegate',
    `${method} needs a caller to ask, but no client's call is in progress; call this from a tool or prompt served by a gateway`,
  );
}

/**
 * The session of the call in progress: inside a builtin tool or a prompt delegate, who called,
 * how to report progress and log to them, and how to ask them for input (`elicit`) or a model's
 * answer (`createMessage`). Outside a served call it is an inert session whose `progress` and
 * `log` do nothing, so code can call them unconditionally, and whose `elicit` and
 * `createMessage` fail with `no_delegate`.
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
  const merged = { ...getSession(), ...session };
  // A session given a caller to log to logs there through its logger too, unless it has its own.
  if (session.log !== undefined && session.logger === undefined) {
    merged.logger = callerLogger(session.log);
  }
  if (session.meta !== undefined && CALLER_META_KEY in session.meta) {
    // The caller tag routes an upstream's requests; it is not the code's to see.
    const { [CALLER_META_KEY]: _, ...meta } = session.meta;
    merged.meta = meta;
  }
  return storage.run(merged, fn);
}

const LOG_LEVELS = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' } as const;

/** A {@link Logger} that sends each message to the caller as `session.log` does. */
function callerLogger(log: Session['log']): Logger {
  const send =
    (level: keyof typeof LOG_LEVELS) =>
    (message: string, data?: Record<string, unknown>): void => {
      log(LOG_LEVELS[level], data === undefined ? message : { message, ...data }).catch(
        () => undefined,
      );
    };
  return { debug: send('debug'), info: send('info'), warn: send('warn'), error: send('error') };
}
