import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MSEC,
  type RequestOptions,
} from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

type CallToolReturn = ReturnType<Client['callTool']>;
type ResultSchema = Parameters<Client['callTool']>[1];

/** Settles a call in flight with its answer, or with why it has none. */
type Settle = (answer: JSONRPCMessage | Error) => void;

/**
 * The SDK's `Client`, with `tools/call` sent and answered without the SDK's request machinery.
 *
 * Why: a connector's calls are a gateway's hot path, and the SDK's request handling (response
 * and progress handler maps, the message kind told by trying zod schemas in turn, a listener it
 * never removes from the caller's signal) cost a call ~40 µs of a gateway's CPU. Here a call is
 * sent with an ID of its own (`toolplane:<n>`, never one of the SDK's numbers), its answer is
 * taken off the transport before the SDK would look at it and checked with the same result
 * schema, and what the SDK does around a request is kept: `notifications/cancelled` and a
 * rejection when the signal aborts, the request timeout (`McpError` RequestTimeout), and
 * `McpError` ConnectionClosed for calls in flight when the connection closes. Calls that need
 * more of the SDK (progress through `onprogress`, tasks, resumption options) go the SDK's way.
 *
 * What differs: the SDK's own check of `structuredContent` against the output schema it cached
 * from `tools/list` is left to the caller (the toolkit's runner checks results against the same
 * schema).
 */
export class ConnectorClient extends Client {
  readonly #inFlight = new Map<string, Settle>();
  #count = 0;

  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
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
      const closed = new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
      for (const settle of [...this.#inFlight.values()]) settle(closed);
      sdkClose?.call(transport);
    };
  }

  override callTool(
    params: CallToolRequest['params'],
    resultSchema: ResultSchema = CallToolResultSchema,
    options?: RequestOptions,
  ): CallToolReturn {
    const transport = this.transport;
    if (
      transport === undefined ||
      options?.onprogress !== undefined ||
      options?.relatedRequestId !== undefined ||
      options?.resumptionToken !== undefined ||
      options?.onresumptiontoken !== undefined ||
      options?.task !== undefined ||
      options?.relatedTask !== undefined ||
      this.getServerCapabilities()?.tasks !== undefined
    ) {
      return super.callTool(params, resultSchema, options);
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
        cancel(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout }));
      }, timeout);
      const done = (): void => {
        this.#inFlight.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      // As the SDK cancels a request: tell the server, and fail with an McpError.
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
          reason instanceof McpError
            ? reason
            : new McpError(ErrorCode.RequestTimeout, String(reason)),
        );
      };
      const onAbort = (): void => {
        cancel(signal?.reason);
      };
      this.#inFlight.set(id, (answer) => {
        done();
        if (answer instanceof Error) {
          reject(answer);
        } else if ('error' in answer) {
          const { code, message, data } = answer.error;
          reject(McpError.fromError(code, message, data));
        } else if ('result' in answer) {
          const parsed = resultSchema.safeParse(answer.result);
          if (parsed.success) resolve(parsed.data);
          else reject(parsed.error);
        } else {
          reject(new Error('the server answered with neither a result nor an error'));
        }
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      transport
        .send({ jsonrpc: '2.0', id, method: 'tools/call', params })
        .catch((error: unknown) => {
          done();
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }
}
