import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/server';
import {
  CALLER_META_KEY,
  HANDED_ON_OUTCOME,
  handedOn,
  type CallOptions,
  type Session,
} from '@toolplane/toolkit';
import type { Era } from './eras.js';
import { checkToolCall } from './auth/access.js'; // OAuth (auth/)
import { sessionAuth } from './auth/verified.js'; // OAuth (auth/)
import { callers, callerSession, callToken } from './session/upstream-forwarding.js';
import type { RequestInput } from './session/round-calls.js';
import { errorResult, toCallToolResult, upstreamProtocolError } from './call-results.js';
import { upstreamLog, wantsLog, type CallExtra, type SessionState } from './session/state.js';
import type { ToolItem } from './items.js';
import type { McpServerInstance } from './sdk/gateway-server.js';
import type { GatewayHub } from './hub.js';
import { callRecord, outcomeOfError, safely, type CallOutcome } from './observe/observer.js';

/** What a 2026 client's call runs with when an upstream may ask it for input. */
export interface InputFlow {
  readonly signal: AbortSignal;
  readonly requestInput: RequestInput;
}

/**
 * Runs one `tools/call` of a resolved tool and builds its result (errors become results).
 * `signal`, when given without a `flow`, replaces the request's: code mode's calls end with the
 * run that made them (its timeout included), not only with the `run_code` request.
 */
export type RunToolCall = (
  item: ToolItem,
  input: Record<string, unknown>,
  flow?: InputFlow,
  signal?: AbortSignal,
) => Promise<CallToolResult>;

/**
 * The call runner of one `tools/call` request of a session: `extra` is the request's context,
 * `meta` its `_meta` without the progress token, which (when given) asks for progress.
 */
export type ToolCaller = (
  extra: CallExtra,
  meta: Record<string, unknown>,
  progressToken?: string | number,
) => RunToolCall;

/**
 * The session's tool caller: a call goes to the toolkit with the caller's session (for builtins
 * and prompt delegates), its upstream requests routed back to this session, its progress and log
 * messages sent before its result, and any failure turned into an `isError` result.
 */
export function toolCaller(
  hub: GatewayHub,
  session: SessionState,
  server: McpServerInstance,
  era: Era,
): ToolCaller {
  const { toolkit } = hub;
  // Metrics and audit lines: nothing is timed when nobody watches.
  const observe = hub.options.observe?.toolCall;
  return (extra, meta, progressToken) => {
    const learningKey = hub.learningKey(session, extra);
    // Progress and log messages are sent before the result they precede, never after it.
    let sent: Promise<unknown> | undefined;
    const notify = (notification: ServerNotification): Promise<void> => {
      const sending = extra.mcpReq.notify(notification).catch(() => undefined);
      sent = sent === undefined ? sending : Promise.all([sent, sending]);
      return sending;
    };
    const onProgress =
      progressToken === undefined
        ? undefined
        : (event: { progress: number; total?: number; message?: string }) => {
            void notify({ method: 'notifications/progress', params: { progressToken, ...event } });
          };
    return async (item, input, flow, ownSignal) => {
      const started = observe === undefined ? 0 : performance.now();
      let outcome: CallOutcome = 'ok';
      checkToolCall(extra, item); // OAuth (auth/): refused unless the caller's scopes reach it
      // Upstream sampling and elicitation during this call come back to this session (to a
      // 2026 client as input_required rounds of the flow).
      const caller = callToken(session.token);
      callers.set(caller, { server, extra, era, requestInput: flow?.requestInput });
      // A 2025 session hears its upstreams' log messages on its GET stream (the hub sends them);
      // a 2026-07-28 request has no stream but its own, so those of the server it calls come
      // on it while the call runs, at the level its _meta asked for.
      const stopLogs =
        era === 'modern'
          ? toolkit.onEvent((event) => {
              if (event.type !== 'log_message' || event.namespace !== item.namespace) return;
              if (event.session !== undefined && event.session !== session.token) return;
              if (!wantsLog(session, event.level)) return;
              void notify({ method: 'notifications/message', params: upstreamLog(event) });
            })
          : undefined;
      try {
        // Builtins, prompt delegates and middleware see who called, and talk to them
        // (getSession()); an upstream's tool without middleware reads none of it, so the
        // session (a dozen closures) is built only when the toolkit reads it.
        let calling: Partial<Session> | undefined;
        const options: CallOptions = {
          signal: flow?.signal ?? ownSignal ?? extra.mcpReq.signal,
          meta: { ...meta, [CALLER_META_KEY]: caller },
          get session(): Partial<Session> {
            const log: Session['log'] = (level, data, logger) =>
              wantsLog(session, level)
                ? notify({
                    method: 'notifications/message',
                    params: { level, data, ...(logger === undefined ? {} : { logger }) },
                  })
                : Promise.resolve();
            return (calling ??= {
              ...callerSession(server, extra, { log }, era, flow && { ...flow, toolId: item.id }),
              auth: sessionAuth(extra), // OAuth (auth/): who called
              source: session.source,
            });
          },
          sessionKey: session.token,
          // A 2026 request over HTTP is a session of its own: learning links it by its caller.
          learningKey,
          onProgress,
        };
        const result = await toolkit.callTool(item.id, input, options);
        if (sent !== undefined) await sent;
        const answer = toCallToolResult(result, era);
        if (answer.isError === true) outcome = 'isError';
        return answer;
      } catch (error) {
        // Ended once its round was sent, for its retry to run it again (counted where it runs):
        // this request's own end is the round it answered with, not a cancellation.
        outcome = handedOn(flow?.signal) ? HANDED_ON_OUTCOME : outcomeOfError(error);
        if (sent !== undefined) await sent;
        // An upstream's JSON-RPC error answer stays one (its -32000 too), not a tool's result.
        const upstream = upstreamProtocolError(error);
        if (upstream !== undefined) throw upstream;
        return errorResult(error, item, era);
      } finally {
        stopLogs?.();
        callers.delete(caller);
        if (observe !== undefined)
          safely(observe, callRecord({ item, extra, started, outcome, args: input }));
      }
    };
  };
}
