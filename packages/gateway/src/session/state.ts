/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era features (logging, sampling, roots,
   initialize-scoped client identity), bridged for as long as clients and servers speak them */
import type {
  LoggingLevel,
  LoggingMessageNotification,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolkitEvent } from '@toolplane/toolkit';
import type { Era } from '../eras.js';
import type { McpServerInstance } from '../sdk/gateway-server.js';

/** The upstream resource behind a URI a client subscribed to. */
export interface SubscriptionTarget {
  readonly namespace: string;
  readonly uri: string;
}

/** A session's state the hub relays to: its server, subscriptions and log level. */
export interface SessionState {
  readonly server: McpServerInstance;
  /** Names the session in its calls' caller tokens, and to upstreams' requests after a call. */
  readonly token: string;
  /** The MCP era the session speaks; a 2026-07-28 session is one request (or stdio connection). */
  readonly era: Era;
  /** The HTTP request's source (`SourceLimits.sourceOf`); absent on stdio. */
  readonly source: string | undefined;
  initialized: boolean;
  /** The URIs the client subscribed to, as it sees them, with the resource each one names. */
  readonly subscriptions: Map<string, SubscriptionTarget>;
  /** The least severe level the client wants (`logging/setLevel`); all when unset. */
  logLevel: LoggingLevel | undefined;
}

/**
 * Whose share of a per-caller resource (code mode's sandboxes) a call takes: its verified OAuth
 * caller (`caller`, from `callerKey`), else its HTTP request's source, so that one client's many
 * sessions share one; on stdio, the one 2025 session (a 2026 one is not counted).
 */
export function shareKey(session: SessionState, caller: string | undefined): string | undefined {
  if (caller !== undefined) return caller;
  if (session.source !== undefined) return `source:${session.source}`;
  return session.era === 'legacy' ? session.token : undefined;
}

// MCP's levels (RFC 5424's), least severe first.
const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const LOG_SEVERITY = new Map(LEVELS.map((level, rank) => [level, rank]));

/** Whether a session that asked for `wanted` and above takes a message at `level`. */
export function wantsLog(session: SessionState, level: LoggingLevel): boolean {
  const wanted = session.logLevel;
  // On 2026-07-28 a request that names no level in its _meta wants no log messages.
  if (wanted === undefined && session.era === 'modern') return false;
  return wanted === undefined || (LOG_SEVERITY.get(level) ?? 0) >= (LOG_SEVERITY.get(wanted) ?? 0);
}

/**
 * An upstream's log message as the gateway tells a client of it: the logger named after the
 * server (`fx`, or `fx/<its logger>`), level and data as the server sent them.
 */
export function upstreamLog(
  event: Extract<ToolkitEvent, { type: 'log_message' }>,
): LoggingMessageNotification['params'] {
  const logger =
    event.logger === undefined ? event.namespace : `${event.namespace}/${event.logger}`;
  return { level: event.level, logger, data: event.data };
}

/** The context the SDK hands a request handler. */
export type CallExtra = ServerContext;
