import {
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  PROTOCOL_VERSION_META_KEY,
  type Client,
  type CreateMessageResult,
  type ElicitResult,
  type Implementation,
  type LoggingLevel,
  type Transport,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import type { CallTracker } from './call-tracker.js';
import { ConnectorClient } from './connector-client.js';
import type { ListKind } from './connector-lists.js';
import type { ConnectorEvent, UpstreamRequest, UpstreamRequestHandler } from './connector-types.js';
import { withElicitationDefaults } from './elicitation-defaults.js';

/** What a connector hands {@link makeConnectorClient}. */
export interface ClientSetup {
  readonly info: Implementation;
  readonly namespace: string;
  /** The handler read when the connection is made: decides what is advertised. */
  readonly upstream: UpstreamRequestHandler | undefined;
  /** The handler now (it may have gone since the connection was made). */
  readonly currentUpstream: () => UpstreamRequestHandler | undefined;
  readonly negotiation: VersionNegotiationOptions | undefined;
  readonly calls: CallTracker;
  /** Answers a sampling or elicitation request of the server. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
  readonly answer: <R extends CreateMessageResult | ElicitResult>(
    request: UpstreamRequest,
    mcpReq: { id: string | number; signal: AbortSignal },
  ) => Promise<R>;
  /** Re-fetches a list of `client`'s. */
  readonly refresh: (client: Client, kind: ListKind) => Promise<void>;
  /** Whether a change to `kind` is followed now (see `ListCache.follows`). */
  readonly follows: (kind: ListKind) => boolean;
  readonly emit: (event: ConnectorEvent) => void;
}

/**
 * A new, unconnected client for a connector: the capabilities its upstream-request handler can
 * answer, its era negotiation, and the handlers for what the server sends (requests during calls,
 * list changes, log messages, resource updates). The handlers serve both eras: on a 2026-07-28
 * connection the SDK answers `input_required` rounds through the same request handlers, and the
 * notifications of a `subscriptions/listen` stream (`ResourceSubscriptions`) reach the same
 * notification handlers.
 */
export function makeConnectorClient(setup: ClientSetup): ConnectorClient {
  const { upstream, calls, namespace } = setup;
  const client = new ConnectorClient(setup.info, {
    capabilities: {
      ...(upstream?.capabilities.sampling === true ? { sampling: {} } : {}),
      // Form mode only: URL mode needs the caller's client to support it, unknown here.
      // Defaults are applied here, whatever the caller's client does (SEP-1034).
      ...(upstream?.capabilities.elicitation === true
        ? { elicitation: { form: { applyDefaults: true } } }
        : {}),
      ...(upstream?.capabilities.roots === true ? { roots: { listChanged: true } } : {}),
    },
    ...(setup.negotiation === undefined ? {} : { versionNegotiation: setup.negotiation }),
  });
  listen(client, setup);
  if (upstream?.capabilities.sampling === true) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      setup.answer(request, ctx.mcpReq),
    );
  }
  if (upstream?.capabilities.elicitation === true) {
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      setup.answer(request, ctx.mcpReq),
    );
  }
  if (upstream?.capabilities.roots === true) {
    client.setRequestHandler('roots/list', async (_request, ctx) => {
      const handler = setup.currentUpstream();
      const context = {
        namespace,
        caller: calls.rootsCaller(ctx.mcpReq.id),
        signal: ctx.mcpReq.signal,
      };
      return (await handler?.listRoots?.(context)) ?? { roots: [] };
    });
  }
  return client;
}

function listen(client: Client, setup: ClientSetup): void {
  const { namespace, emit } = setup;
  const changed =
    (kind: ListKind, type: 'tool_list_changed' | 'prompt_list_changed' | 'resource_list_changed') =>
    async (): Promise<void> => {
      if (!setup.follows(kind)) return;
      await setup.refresh(client, kind);
      if (kind === 'resources') await setup.refresh(client, 'resourceTemplates');
      emit({ type, namespace });
    };
  client.setNotificationHandler(
    'notifications/tools/list_changed',
    changed('tools', 'tool_list_changed'),
  );
  client.setNotificationHandler(
    'notifications/prompts/list_changed',
    changed('prompts', 'prompt_list_changed'),
  );
  client.setNotificationHandler(
    'notifications/resources/list_changed',
    changed('resources', 'resource_list_changed'),
  );
  client.setNotificationHandler('notifications/message', ({ params }) => {
    emit({
      type: 'log_message',
      namespace,
      level: params.level,
      ...(params.logger === undefined ? {} : { logger: params.logger }),
      data: params.data,
    });
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    emit({ type: 'resource_updated', namespace, uri: notification.params.uri });
  });
}

/**
 * On a 2026-07-28 connection a server sends log messages for a request only when the request
 * names the least severe level wanted (`_meta` `logLevel`; the 2025 `logging/setLevel` is gone).
 * Every request that carries the 2026 envelope gets `level` unless it names one, so the toolkit
 * hears what a 2025 server sends unasked: everything.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- logging is bridged in both eras
export function askForLogs(transport: Transport, level: LoggingLevel): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!('method' in message) || !('id' in message)) return send(message, options);
    const params = message.params as { _meta?: Record<string, unknown> } | undefined;
    const meta = params?._meta;
    if (meta?.[PROTOCOL_VERSION_META_KEY] === undefined || meta[LOG_LEVEL_META_KEY] !== undefined) {
      return send(message, options);
    }
    return send(
      { ...message, params: { ...params, _meta: { ...meta, [LOG_LEVEL_META_KEY]: level } } },
      options,
    );
  };
}

/**
 * Answers a server's sampling or elicitation request with `handler` (what the connector's
 * `upstreamRequests` gives now), for the caller of the call it came during.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- a 2025-era feature, bridged as long as servers speak it
export async function answerUpstream<R extends CreateMessageResult | ElicitResult>(
  handler: UpstreamRequestHandler | undefined,
  at: {
    readonly namespace: string;
    readonly calls: CallTracker;
    readonly request: UpstreamRequest;
    readonly mcpReq: { id: string | number; signal: AbortSignal };
  },
): Promise<R> {
  const { request, mcpReq } = at;
  if (handler === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `${request.method} is no longer served by this client; reconnect to renegotiate`,
    );
  }
  const caller = at.calls.callerOf(mcpReq.id, request.method, (parked) =>
    handler.release?.(parked),
  );
  const context = { namespace: at.namespace, caller, signal: mcpReq.signal };
  const result = await handler.handle(request, context);
  return (
    request.method === 'elicitation/create'
      ? withElicitationDefaults(request, result as ElicitResult)
      : result
  ) as R;
}
