import {
  Client,
  DEFAULT_REQUEST_TIMEOUT_MSEC,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type CallToolRequest,
  type CallToolRequestOptions,
  type CallToolResult,
  type ConnectOptions,
  type EmptyResult,
  type RequestOptions,
  type SubscribeRequest,
  type UnsubscribeRequest,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { whenAborted } from '@toolplane/toolmodel';
import { CALL_META_KEY, type CallTracker } from './call-tracker.js';
import { idleBegins, whenIdle } from './idle-work.js';
import type { ResourceSubscriptions } from './connector-listen.js';
import { CALLER_META_KEY } from './connector-types.js';
import { isLostAnswer } from './transport/http-transport-parts.js';
import { isToolResult } from './transport/wire-shapes.js';

/**
 * Starts the queued idle work (see `idle-work.ts`) once the first request is out over
 * `transport`, the first wait for the server; when that request is the era probe
 * (`server/discover`), `warm` first of all.
 */
function warmAfterProbe(transport: Transport, warm: () => void): void {
  const send = transport.send.bind(transport);
  let armed = true;
  transport.send = (message, options) => {
    if (!armed || !('method' in message) || !('id' in message)) return send(message, options);
    armed = false;
    if (message.method === 'server/discover') whenIdle(warm, { first: true });
    const sent = send(message, options);
    idleBegins();
    return sent;
  };
}

/** A 2025 server's answer to `initialize`, for the warm-up (see `#warmLegacySchemas`). */
const WARM_INITIALIZE = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true }, prompts: {}, resources: {}, logging: {} },
  serverInfo: { name: 'warm-up', version: '0' },
};

/** An answer to `tools/list`, for the warm-up (see `#warmLegacySchemas`). */
const WARM_TOOLS = {
  tools: [
    {
      name: 'warm_up',
      description: 'A sample.',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      outputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
  ],
};

/** Settles a call in flight with its answer, or with why it has none. */
type Settle = (answer: JSONRPCMessage | Error) => void;

/**
 * The SDK's `Client`, with `tools/call` sent and answered without the SDK's request machinery.
 *
 * Why: a connector's calls are a gateway's hot path, and the SDK's request handling (response
 * and progress handler maps, the message kind told by trying zod schemas in turn, a listener it
 * never removes from the caller's signal) cost a call ~40 µs of a gateway's CPU. Here a call is
 * sent with an ID of its own (`toolplane:<n>`, never one of the SDK's numbers), its answer is
 * taken off the transport before the SDK would look at it and checked to be a `CallToolResult`,
 * and what the SDK does around a request is kept: `notifications/cancelled` and a rejection when
 * the signal aborts, the request timeout (`SdkError` RequestTimeout), and `SdkError`
 * ConnectionClosed for calls in flight when the connection closes. Calls that need more of the
 * SDK (progress through `onprogress`, resumption options, a 2026-07-28 connection with its
 * `_meta` envelope and `input_required` rounds) go the SDK's way.
 *
 * What differs: the SDK's own check of `structuredContent` against the output schema it cached
 * from `tools/list` is left to the caller (the toolkit's runner checks results against the same
 * schema).
 */
export class ConnectorClient extends Client {
  readonly #inFlight = new Map<string, Settle>();
  #count = 0;
  /**
   * Where resource subscriptions go, set by the connector: on a 2026-07-28 connection, which has
   * no `resources/subscribe`, into its `subscriptions/listen` filter (see
   * {@link ResourceSubscriptions}).
   */
  subscriptions: ResourceSubscriptions | undefined;
  /** The connection's calls with their callers, set by the connector (see {@link CallTracker}). */
  calls: CallTracker | undefined;

  /**
   * A 2026-07-28 call, the SDK's way, named across its requests so the tracker drops it when it
   * ends: its caller may give up during an input round, when nothing goes over the wire.
   */
  #modernCall(
    params: CallToolRequest['params'],
    options: CallToolRequestOptions | undefined,
  ): Promise<CallToolResult> {
    const calls = this.calls;
    if (calls === undefined || typeof params._meta?.[CALLER_META_KEY] !== 'string') {
      return super.callTool(params, options);
    }
    const key = calls.key();
    return super
      .callTool({ ...params, _meta: { ...params._meta, [CALL_META_KEY]: key } }, options)
      .finally(() => {
        calls.end(key);
      });
  }

  override async subscribeResource(
    params: SubscribeRequest['params'],
    options?: RequestOptions,
  ): Promise<EmptyResult> {
    if (this.subscriptions === undefined) return super.subscribeResource(params, options);
    await this.subscriptions.subscribe(this, params.uri, options);
    return {};
  }

  override async unsubscribeResource(
    params: UnsubscribeRequest['params'],
    options?: RequestOptions,
  ): Promise<EmptyResult> {
    if (this.subscriptions === undefined) return super.unsubscribeResource(params, options);
    await this.subscriptions.unsubscribe(this, params.uri, options);
    return {};
  }

  override async connect(transport: Transport, options?: ConnectOptions): Promise<void> {
    warmAfterProbe(transport, () => {
      this.#warmLegacySchemas();
    });
    await super.connect(transport, options);
    const sdkMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = (message as { id?: unknown }).id;
      const settle =
        typeof id === 'string' && !('method' in message) ? this.#inFlight.get(id) : undefined;
      if (settle === undefined) sdkMessage?.call(transport, message, extra);
      else settle(message);
    };
    const sdkClose = transport.onclose;
    transport.onclose = () => {
      const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
      for (const settle of [...this.#inFlight.values()]) settle(closed);
      sdkClose?.call(transport);
    };
  }

  /**
   * Builds the SDK's 2025-11-25 wire schemas (a memo, ~15 ms of CPU the first time in a process),
   * unless the era is settled. Why: under `era: 'auto'` the SDK builds them only once the probe
   * is refused, on the path to `initialize`, while the wait for a starting server's answer to
   * the probe sits idle before it. Warmed through the codec the connection would use before an
   * era is negotiated, which is the 2025 one; nothing else is built. Run as idle work (see
   * `idle-work.ts`): an answer that came first has made it a memo hit, or settled the era. The
   * answers to `initialize` and `tools/list` that follow are parsed once in samples too.
   */
  #warmLegacySchemas(): void {
    if (this.getNegotiatedProtocolVersion() !== undefined) return;
    try {
      const codec = this._wireCodec();
      // Parsed once each, so their first real answers find zod's lazy parts made (~1–5 ms).
      codec.validateResult('initialize', WARM_INITIALIZE);
      codec.validateResult('tools/list', WARM_TOOLS);
    } catch {
      // A warm-up only: whatever it hit, the SDK meets it again, and reports it, when it needs it.
    }
  }

  override callTool(
    params: CallToolRequest['params'],
    options?: CallToolRequestOptions,
  ): Promise<CallToolResult> {
    const transport = this.transport;
    if (transport !== undefined && this.getProtocolEra() !== 'legacy') {
      return this.#modernCall(params, options);
    }
    if (
      transport === undefined ||
      options?.onprogress !== undefined ||
      options?.relatedRequestId !== undefined ||
      options?.resumptionToken !== undefined ||
      options?.onresumptiontoken !== undefined ||
      options?.allowInputRequired !== undefined
    ) {
      return super.callTool(params, options);
    }
    const signal = options?.signal;
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const id = `toolplane:${++this.#count}`;
    return new Promise((resolve, reject) => {
      const timeout = Math.min(
        options?.timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC,
        options?.maxTotalTimeout ?? Infinity,
      );
      const timer = setTimeout(() => {
        cancel(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout }));
      }, timeout);
      // Set once the request is out; a signal's abort before then was refused above.
      let stopListening: (() => void) | undefined;
      const done = (): void => {
        this.#inFlight.delete(id);
        clearTimeout(timer);
        stopListening?.();
      };
      // As the SDK cancels a request: tell the server, and fail with an SdkError.
      const cancel = (reason: unknown): void => {
        done();
        transport
          .send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: String(reason) },
          })
          .catch((error: unknown) => {
            this.onerror?.(new Error(`Failed to send cancellation: ${String(error)}`));
          });
        reject(
          reason instanceof SdkError
            ? reason
            : new SdkError(SdkErrorCode.RequestTimeout, String(reason)),
        );
      };
      this.#inFlight.set(id, (answer) => {
        done();
        if (answer instanceof Error) {
          reject(answer);
        } else if ('error' in answer) {
          const { code, message, data } = answer.error;
          // The HTTP transport makes up an answer for a call whose stream was lost, failed as the
          // SDK fails calls in flight when the connection closes. Any other answer is the
          // server's, whatever its code (-32000 included).
          reject(
            isLostAnswer(answer)
              ? new SdkError(SdkErrorCode.ConnectionClosed, message, data)
              : ProtocolError.fromError(code, message, data),
          );
        } else if ('result' in answer) {
          if (isToolResult(answer.result)) resolve(answer.result);
          else {
            reject(
              new SdkError(
                SdkErrorCode.InvalidResult,
                'the server answered tools/call with no CallToolResult',
              ),
            );
          }
        } else {
          reject(new Error('the server answered with neither a result nor an error'));
        }
      });
      if (signal !== undefined) {
        stopListening = whenAborted(signal, () => {
          cancel(signal.reason);
        });
      }
      transport
        .send({ jsonrpc: '2.0', id, method: 'tools/call', params })
        .catch((error: unknown) => {
          done();
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }
}
