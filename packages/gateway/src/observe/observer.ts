// What a gateway tells whoever watches it (metrics, audit logs): plain records, no library types,
// so that the hot paths depend on nothing but this file.
import { ToolError } from '@toolplane/toolkit';
import { verifiedOf, type HandlerExtra } from '../auth/verified.js'; // OAuth (auth/)

/**
 * How a tool call ended: `ok`, `isError` (the tool said it failed), a `ToolError` code, or
 * `input_required`: a 2026-07-28 call ended once its `input_required` round was sent, because its
 * retry runs it again (a fleet's `replayRounds: 'always'`), which is counted with its own outcome.
 */
export type CallOutcome = 'ok' | 'isError' | (string & {});

/** The `tool` and `namespace` of a call naming no tool the gateway has. */
export const UNKNOWN_TOOL = 'unknown';

/** One tool call through the gateway, as {@link GatewayObserver.toolCall} hears of it. */
export interface ToolCallRecord {
  /** The tool's namespace, or {@link UNKNOWN_TOOL}. */
  readonly namespace: string;
  /** The tool's canonical ID (`namespace:name`), or {@link UNKNOWN_TOOL} for a name it lacks. */
  readonly tool: string;
  readonly outcome: CallOutcome;
  /** How long it took, in milliseconds. */
  readonly durationMs: number;
  /** The MCP session it came on (absent for stdio and 2026-07-28 requests). */
  readonly sessionId: string | undefined;
  /** The OAuth subject of the verified caller, when the gateway checks OAuth tokens. */
  readonly subject: string | undefined;
  /**
   * The OAuth client of the verified caller, when its token names one: the caller a
   * client-credentials token (which names no subject) speaks for.
   */
  readonly clientId?: string | undefined;
  /** The JSON-RPC request ID. */
  readonly requestId: string | number | undefined;
  /** The call's arguments as sent: an observer records them only when told to. */
  readonly args: unknown;
}

/** One HTTP request the gateway answered. */
export interface HttpRequestRecord {
  readonly status: number;
  /** What was asked for: the MCP endpoint, a health check, the metrics, or anything else. */
  readonly route: 'mcp' | 'healthz' | 'metrics' | 'other';
}

/** A new connection that met one of `serveHttp`'s connection bounds. */
export interface ConnectionBoundRecord {
  /** Which: `maxConnections`, or its source's `maxConnectionsPerSource`. */
  readonly bound: 'connections' | 'source';
  /**
   * `gave_way`: the longest idle kept-alive connection (of the source, at its bound) was closed
   * to make room for it; `refused`: none could give way, and it was cut on arrival.
   */
  readonly outcome: 'gave_way' | 'refused';
  /**
   * The new connection's source: its address (an IPv6 one's /64); absent for a trusted proxy's
   * connection, which counts against no source.
   */
  readonly source?: string | undefined;
}

/**
 * Hears what a gateway does, for metrics and audit logs. Every hook is called synchronously on
 * the path it reports, so it must be cheap and must not throw (what it throws is ignored).
 */
export interface GatewayObserver {
  /** After every `tools/call`, listed tool or not. */
  readonly toolCall?: (record: ToolCallRecord) => void;
  /** After every HTTP answer (`serveHttp` only). */
  readonly httpRequest?: (record: HttpRequestRecord) => void;
  /** Each search of the tool catalogue (`search_tools` in search and code mode). */
  readonly search?: (mode: 'search' | 'code') => void;
  /** Each new connection that meets a connection bound (`serveHttp` only). */
  readonly connectionBound?: (record: ConnectionBoundRecord) => void;
}

/** Both observers in one (either may be absent); `undefined` when neither is there. */
export function combineObservers(
  a: GatewayObserver | undefined,
  b: GatewayObserver | undefined,
): GatewayObserver | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return {
    toolCall: (record) => {
      safely(a.toolCall, record);
      safely(b.toolCall, record);
    },
    httpRequest: (record) => {
      safely(a.httpRequest, record);
      safely(b.httpRequest, record);
    },
    search: (mode) => {
      safely(a.search, mode);
      safely(b.search, mode);
    },
    connectionBound: (record) => {
      safely(a.connectionBound, record);
      safely(b.connectionBound, record);
    },
  };
}

/** Calls `hook` with `value`; an observer's failure never fails what it observes. */
export function safely<T>(hook: ((value: T) => void) | undefined, value: T): void {
  if (hook === undefined) return;
  try {
    hook(value);
  } catch {
    // Watching must not change the outcome of what is watched.
  }
}

/**
 * The outcome of a call that failed with `error`: `isError` when an upstream tool answered with
 * an `isError` result (the runner's `execution` error carries that result as its `cause`), else
 * the `ToolError` code, else `internal`.
 */
export function outcomeOfError(error: unknown): CallOutcome {
  if (!ToolError.isInstance(error)) return 'internal';
  const cause = error.cause as { isError?: unknown } | null | undefined;
  if (error.code === 'execution' && typeof cause === 'object' && cause?.isError === true)
    return 'isError';
  return error.code;
}

/** What {@link callRecord} builds a record from. */
export interface CallFacts {
  readonly item: { readonly namespace: string; readonly id: string } | undefined;
  readonly extra: HandlerExtra & {
    readonly sessionId?: string | undefined;
    readonly mcpReq: { readonly id: string | number };
  };
  /** `performance.now()` when the call started. */
  readonly started: number;
  readonly outcome: CallOutcome;
  readonly args: unknown;
}

/** The record of a call (an unknown tool's when `item` is `undefined`), its duration up to now. */
export function callRecord(facts: CallFacts): ToolCallRecord {
  const { item, extra } = facts;
  const caller = verifiedOf(extra)?.caller;
  return {
    namespace: item?.namespace ?? UNKNOWN_TOOL,
    tool: item?.id ?? UNKNOWN_TOOL,
    outcome: facts.outcome,
    durationMs: performance.now() - facts.started,
    sessionId: extra.sessionId,
    subject: caller?.subject,
    clientId: caller?.clientId,
    requestId: extra.mcpReq.id,
    args: facts.args,
  };
}

/**
 * Runs `answer` for a call naming no tool the gateway has, telling `observer` of it as a call
 * of {@link UNKNOWN_TOOL} (`not_found` when `answer` throws, the result's code otherwise).
 */
export function observeUnknown<T>(
  observer: GatewayObserver | undefined,
  call: { readonly extra: CallFacts['extra']; readonly args: unknown },
  answer: () => T,
): T {
  const observe = observer?.toolCall;
  if (observe === undefined) return answer();
  const started = performance.now();
  let outcome: CallOutcome = 'not_found';
  try {
    const result = answer();
    outcome = 'connector_unavailable';
    return result;
  } finally {
    safely(observe, callRecord({ item: undefined, started, outcome, ...call }));
  }
}
